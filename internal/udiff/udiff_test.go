package udiff

import (
	"bytes"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	tests := []struct{ name, a, b, want string }{
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"added at the end without newline", "a\n", "a\nb", "--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n a\n+b\n\\ No newline at end of file\n"},
		{"from empty", "", "x\n", "--- a/f\n+++ b/f\n@@ -1,0 +1,1 @@\n+x\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n",
			"--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			Write(&b, "f", tc.a, tc.b)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
