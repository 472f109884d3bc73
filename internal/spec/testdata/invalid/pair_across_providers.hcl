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
  server = template.here
  client = template.there # ERROR: Pair across providers
}
