lab "bad" {}
template "t" {
  ssh {
    agent = "sometimes" # ERROR: Incorrect attribute value type
  }
}
