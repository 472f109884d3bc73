lab "bad" {}
template "t" {}
template "t" { # ERROR: Duplicate template
  os = "freebsd"
}
