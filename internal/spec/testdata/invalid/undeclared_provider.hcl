lab "bad" {}
provider "local" "a" {}
template "t" {
  provider = provider.local.b # ERROR: Reference to undeclared provider
}
