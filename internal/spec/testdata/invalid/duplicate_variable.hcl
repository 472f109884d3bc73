lab "bad" {}
variable "x" { default = 1 }
variable "x" { default = 2 } # ERROR: Duplicate variable
