# Run it on AWS (infra/README.md): included by the root Makefile.
#   make aws-cost                      cost per hour of the stack (needs AWS credentials)
#   make aws-up [AWS_HOURS=8] [YES=1]  create it; its hosts scale to zero after AWS_HOURS
#   make aws-push                      build the images and push them to ECR (needs Docker)
#   make aws-bench [the knobs of make bench: PROFILE= SERVICE= USERS= POOL= ...]
#   make aws-down                      stop everything and destroy the stack
#   make test-infra                    the offline checks of infra/ (also part of `make test`)

AWS_HOURS ?= 8
# The aws verb of the harness, in the one .venv (make venv).
AWSBENCH = $(PY) -m bankbench aws
.PHONY: aws-cost aws-up aws-push aws-bench aws-down test-infra

aws-cost: venv
	$(AWSBENCH) cost --hours $(AWS_HOURS)

aws-up: venv
	$(AWSBENCH) up --hours $(AWS_HOURS) $(if $(YES),--yes)

aws-push: venv
	$(AWSBENCH) push

aws-bench: venv
	$(AWSBENCH) bench $(BENCH_KNOBS)

aws-down: venv
	$(AWSBENCH) down

test-infra: venv
	bash infra/test.sh
