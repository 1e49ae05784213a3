# Run it on AWS (infra/README.md): included by the root Makefile, whose `make help` lists these.

# The aws verb of the harness, in the one .venv (make venv); it reads AWS_HOURS= and YES=1 as the
# other verbs read their knobs (harness/bankbench/cli.py).
AWSBENCH = $(BANKBENCH) aws
.PHONY: aws-cost aws-up aws-push aws-bench aws-down test-infra

aws-cost: venv ## cost per hour of the stack (needs AWS credentials; AWS_HOURS=8)
	$(AWSBENCH) cost

aws-up: venv ## create the stack (AWS_HOURS=8: its hosts scale to zero after that; YES=1: without asking)
	$(AWSBENCH) up

aws-push: venv ## build the images and push them to ECR (needs Docker)
	$(AWSBENCH) push

aws-bench: venv ## make bench on the stack, with the same knobs (PROFILE= SERVICE= USERS= POOL= ...)
	$(AWSBENCH) bench

aws-down: venv ## stop everything and destroy the stack
	$(AWSBENCH) down

test-infra: venv ## the offline checks of infra/ (also part of `make test`)
	bash infra/test.sh
