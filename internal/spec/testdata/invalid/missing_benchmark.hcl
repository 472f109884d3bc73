lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" { # ERROR: Missing benchmark block
  pairs = [pair.p]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  
}
