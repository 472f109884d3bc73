lab "bad" {}
template "t" {}
pair "p" { template = template.t }
pair "p" { template = template.t } # ERROR: Duplicate pair
