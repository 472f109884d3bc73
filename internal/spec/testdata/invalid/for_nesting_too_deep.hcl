lab "bad" {}
template "t" {}
pair "p" { template = template.t }
variable "bomb" {
  default = [for a in range(1000) : [for b in range(1000) :
    [for c in range(1000) : c]]] # ERROR: For expressions nested too deeply
}
experiment "e" {
  pairs = [pair.p]
  iperf3 {}
}
