lab "bad" {}
template "t" {
  os = "windows" # ERROR: Invalid operating system
}
