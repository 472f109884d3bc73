lab "one" {}
lab "two" {} # ERROR: Duplicate lab block
