# tflint with its bundled terraform ruleset only (the AWS ruleset is a download this machine
# cannot make): every rule on, documented and typed variables, naming, unused declarations.
plugin "terraform" {
  enabled = true
  preset  = "all"
}
