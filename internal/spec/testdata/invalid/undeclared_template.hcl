lab "bad" {}
template "t" {}
pair "p" {
  template = template.nope # ERROR: Reference to undeclared template
}
