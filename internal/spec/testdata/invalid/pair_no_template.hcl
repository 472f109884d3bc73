lab "bad" {}
template "t" {}
pair "p" { # ERROR: Missing template
  vcpu = 2
}
