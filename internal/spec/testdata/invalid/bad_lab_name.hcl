lab "Quick Start" {} # ERROR: Invalid lab name
