template "t" {} # ERROR: Missing lab block
