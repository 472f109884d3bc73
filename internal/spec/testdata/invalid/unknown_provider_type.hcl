lab "bad" {}
provider "nope" "x" {} # ERROR: Unknown provider type
