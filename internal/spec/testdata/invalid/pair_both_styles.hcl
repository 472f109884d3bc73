lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  server = template.t # ERROR: Conflicting template attributes
  client = template.t
}
