lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  memory = "2 gigs" # ERROR: Invalid memory size
}
