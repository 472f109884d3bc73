lab "bad" {}
template "t" {}
pair "p" { template = template.t }
widget "x" {} # ERROR: Unsupported block type
