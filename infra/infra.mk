# Run it on AWS (infra/README.md): included by the root Makefile.
#   make aws-cost                      cost per hour of the stack (needs AWS credentials)
#   make aws-up [AWS_HOURS=8] [YES=1]  create it; its hosts scale to zero after AWS_HOURS
#   make aws-push                      build the images and push them to ECR (needs Docker)
#   make aws-bench [the knobs of make bench: PROFILE= SERVICE= USERS= POOL= ...]
#   make aws-down                      stop everything and destroy the stack
#   make test-infra                    the offline checks of infra/ (also part of `make test`)

AWS_HOURS ?= 8
AWSBENCH = PYTHONPATH=infra/scripts infra/.venv-tools/bin/python -m awsbench
.PHONY: aws-tools aws-cost aws-up aws-push aws-bench aws-down test-infra

aws-tools:
	@infra/scripts/venv.sh .venv-tools requirements-tools.txt

aws-cost: aws-tools
	$(AWSBENCH) cost --hours $(AWS_HOURS)

aws-up: aws-tools
	$(AWSBENCH) up --hours $(AWS_HOURS) $(if $(YES),--yes)

aws-push: aws-tools
	$(AWSBENCH) push

aws-bench: aws-tools
	$(AWSBENCH) bench $(BENCH_KNOBS)

aws-down: aws-tools
	$(AWSBENCH) down

test-infra:
	bash infra/test.sh
