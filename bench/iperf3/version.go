package iperf3

// versionArgv prints iperf3's version (Program.Version).
var versionArgv = []string{"iperf3", "--version"}
