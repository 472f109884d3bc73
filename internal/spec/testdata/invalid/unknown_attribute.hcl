lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  colour = "red" # ERROR: Unsupported argument
}
