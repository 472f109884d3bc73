lab "bad" {}
template "t" {
  cloud_init {}
  cloud_init {} # ERROR: Duplicate
}
