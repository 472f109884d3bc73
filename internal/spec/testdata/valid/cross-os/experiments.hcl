experiment "lro" {
  pairs  = [pair.mixed]
  matrix = { lro = [false, true], vcpu = [1, 4] }
  warmup = 1

  guest {
    lro                = matrix.lro
    congestion_control = "cubic"
    sysctl             = { "net.inet.tcp.sendspace" = 65536, "kern.ipc.maxsockbuf" = "16777216" }
    strict             = false
  }
  server {
    congestion_control = "new_reno"
    sysctl             = { "net.inet.tcp.recvspace" = 65536 }
  }
  client {
    loss        = "0.5%"
    loss_method = "netem"
  }
  hardware {
    vcpu   = matrix.vcpu
    memory = 4096
  }
  iperf3 {
    duration = "30s"
    omit     = "2s"
    reverse  = true
    length   = "128K"
    port     = 5301
  }
}

experiment "udp" {
  pairs = [pair.mixed]
  iperf3 {
    udp     = true
    bitrate = "2.5G"
  }
}
