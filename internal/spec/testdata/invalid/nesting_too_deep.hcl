lab "bad" {}
template "t" {}
pair "p" { template = template.t }
variable "deep" {
  # 101 levels: the block, 99 brackets and the string
  default = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["a"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] # ERROR: Nesting too deep
}
experiment "e" {
  pairs = [pair.p]
  iperf3 {}
}
