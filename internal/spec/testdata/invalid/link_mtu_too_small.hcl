lab "bad" {}
template "t" {}
pair "p" {
  template = template.t
  link { mtu = 60 } # ERROR: Invalid mtu
}
