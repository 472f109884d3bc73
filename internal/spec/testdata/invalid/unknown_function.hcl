lab "bad" {
  description = nope("x") # ERROR: Call to unknown function
}
