# This file is maintained by lab: what this lab's results depended on.
# Commit it beside the spec. `lab apply` warns when what it observes drifts
# from it (and refuses with -locked); `lab init -upgrade` rewrites it from
# the latest run.

machine "pair.veth.client" {
  template = "linux 6.18.44-fc-v1294; iperf 3.12 (cJSON 1.7.15); iperf version 2.1.8 (12 August 2022) pthreads"
  kernel   = "6.18.44-fc-v1294"
  driver   = "veth"
}

machine "pair.veth.server" {
  template = "linux 6.18.44-fc-v1294; iperf 3.12 (cJSON 1.7.15); iperf version 2.1.8 (12 August 2022) pthreads"
  kernel   = "6.18.44-fc-v1294"
  driver   = "veth"
}

tool "iperf2" {
  version = "iperf version 2.1.8 (12 August 2022) pthreads"
}
