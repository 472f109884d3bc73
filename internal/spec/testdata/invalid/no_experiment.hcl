lab "bad" {} # ERROR: No experiment
template "t" {}
pair "p" { template = template.t }
