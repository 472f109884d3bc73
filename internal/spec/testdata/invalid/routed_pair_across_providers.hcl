lab "cross" {}
provider "local" "a" {}
provider "local" "b" {}
template "here" {
  os       = "linux"
  provider = provider.local.a
}
template "there" {
  os       = "linux"
  provider = provider.local.b
}
pair "p" {
  template = template.here
  via      = template.there # ERROR: Routed pair across providers
}
