lab "bad" {
  description = # ERROR: Invalid expression
}
