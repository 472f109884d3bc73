package guest

import (
	"errors"
	"regexp"
	"strings"
)

// The sysctl rules every guest OS shares. spec checks them when a lab is
// validated or planned (an error at the attribute), and the Linux and
// FreeBSD drivers check them again before a value reaches sysctl(8): one
// rule, so that validate never accepts what apply then refuses.
var (
	sysctlNameRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9_.\-/]{0,127}$`)
	sysctlValueRE = regexp.MustCompile(`^[A-Za-z0-9_.:,/%+\- ]{1,256}$`)
)

// CheckSysctlName refuses a sysctl name that is not a plain path under
// /proc/sys (Linux) or the MIB (FreeBSD): 1 to 128 lower-case letters,
// digits and _ . - /, starting with a letter or digit, whose parts
// between "." or "/" are never empty (no "..", no leading, trailing or
// doubled separator). The error says what is wrong, without the name.
func CheckSysctlName(name string) error {
	for _, part := range strings.Split(strings.ReplaceAll(name, "/", "."), ".") {
		if part == "" {
			return errors.New(`its parts, separated by "." or "/", must not be empty (no "..", no leading, trailing or doubled separator)`)
		}
	}
	if !sysctlNameRE.MatchString(name) {
		return errors.New("use lower-case letters, digits and _ . - / (at most 128), starting with a letter or digit")
	}
	return nil
}

// CheckSysctlValue refuses a value lab will not pass to sysctl(8) as
// name=value: 1 to 256 letters, digits, spaces and _ . : , / % + -,
// nothing a shell would interpret, no control character, no "=" (both
// sysctl(8)s split name=value at the first "=", so "a=b" would reach the
// kernel as a value no sysctl takes, and reads ambiguously in records),
// and a leading "-" only in a negative number (the rule the FreeBSD
// driver always had). The error says what is wrong, without the value.
func CheckSysctlValue(value string) error {
	if strings.Contains(value, "=") {
		return errors.New(`"=" is not allowed in a value: sysctl(8) reads name=value and splits at the first "="`)
	}
	if !sysctlValueRE.MatchString(value) {
		return errors.New("use 1 to 256 letters, digits, spaces and _ . : , / % + - (no shell metacharacters or control characters)")
	}
	if strings.HasPrefix(value, "-") && !isInteger(value) {
		return errors.New(`a value starting with "-" must be a negative number`)
	}
	return nil
}

// isInteger reports whether s is a whole number, with an optional sign.
func isInteger(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
