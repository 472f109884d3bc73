lab "bad" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { streams = [1, 4] }
  background {
    iperf3 { parallel = matrix.streams } # ERROR: Matrix value not available here
  }
  iperf3 {
    duration = "1s"
    parallel = matrix.streams
  }
}
