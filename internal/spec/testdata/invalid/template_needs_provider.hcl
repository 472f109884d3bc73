lab "bad" {}
provider "local" "a" {}
provider "local" "b" {}
template "t" { # ERROR: Missing provider
}
