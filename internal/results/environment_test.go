package results

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"testing"
	"time"
)

// psiText is /proc/pressure/cpu as psi.rst documents it (kernel ≥ 5.13:
// a "full" line too; the system-wide full line of cpu is zero).
const psiText = "some avg10=94.12 avg60=80.00 avg300=30.54 total=110193516\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"

func TestParsePressure(t *testing.T) {
	tests := []struct {
		in      string
		want    uint64
		wantErr string
	}{
		{psiText, 110193516, ""},
		{"some avg10=0.00 avg60=0.00 avg300=0.00 total=0", 0, ""}, // before 5.13: no full line, no newline
		{"full avg10=0.00 total=7\nsome total=42\n", 42, ""},
		{"", 0, `no "some" line`},
		{"full avg10=0.00 total=7\n", 0, `no "some" line`},
		{"some avg10=1.00 avg60=0.00\n", 0, "line 1: the some line has no total= field"},
		{"\nsome total=-5\n", 0, `line 2: total="-5" is not a count of microseconds`},
		{"some total=18446744073709551616\n", 0, "is not a count"}, // 2^64
		{"some total=" + strings.Repeat("9", 100), 0, "…"},         // quoted, clipped
	}
	for _, tt := range tests {
		got, err := ParsePressure([]byte(tt.in))
		if tt.wantErr == "" && (err != nil || got != tt.want) {
			t.Errorf("%q: %d, %v; want %d", tt.in, got, err, tt.want)
		}
		if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}

func TestParseLoadavg(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr bool
	}{
		{"1.84 0.46 0.15 4/137 4380\n", 1.84, false},
		{"48.00", 48, false},
		{"", 0, true},
		{"-1 0 0 1/1 1", 0, true},
		{"NaN 0 0", 0, true},
		{"Inf 0 0", 0, true},
		{"busy", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseLoadavg([]byte(tt.in))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%q: %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// fakeProc is a /proc with the given files; a missing one is absent.
func fakeProc(files map[string]string) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
	}
}

func TestEnvProbeRead(t *testing.T) {
	at := time.Date(2026, 12, 5, 11, 0, 0, 0, time.UTC)
	now := func() time.Time { return at }
	tests := []struct {
		name    string
		read    func(string) ([]byte, error)
		want    EnvReading
		wantErr string
	}{
		{"both", fakeProc(map[string]string{PressurePath: psiText, LoadavgPath: "1.84 0.46 0.15 4/137 4380\n"}),
			EnvReading{At: at, PressureUs: 110193516, PressureKnown: true, Load1: 1.84}, ""},
		{"no PSI (psi=0, kernel < 4.20)", fakeProc(map[string]string{LoadavgPath: "3.5 1 1 1/1 1"}),
			EnvReading{At: at, Load1: 3.5}, ""},
		{"nothing (not Linux)", fakeProc(nil), EnvReading{At: at}, ""},
		{"garbled PSI", fakeProc(map[string]string{PressurePath: "some total=x", LoadavgPath: "2 1 1"}),
			EnvReading{At: at, Load1: 2}, PressurePath + `: line 1: total="x"`},
		{"garbled loadavg", fakeProc(map[string]string{PressurePath: psiText, LoadavgPath: "?"}),
			EnvReading{At: at, PressureUs: 110193516, PressureKnown: true}, LoadavgPath + `: the first field "?"`},
		{"unreadable", func(p string) ([]byte, error) { return nil, errors.New("permission denied") },
			EnvReading{At: at}, PressurePath + ": permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EnvProbe{ReadFile: tt.read, Now: now}.Read()
			if got != tt.want {
				t.Errorf("reading %+v, want %+v", got, tt.want)
			}
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestEnvironmentBetween(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 11, 0, 0, 0, time.UTC)
	at := func(sec float64, us uint64, known bool, load float64) EnvReading {
		return EnvReading{At: t0.Add(time.Duration(sec * float64(time.Second))), PressureUs: us, PressureKnown: known, Load1: load}
	}
	tests := []struct {
		name       string
		start, end EnvReading
		want       Environment
	}{
		{"quiet", at(0, 1000, true, 0.2), at(10, 1000+200_000, true, 0.3), Environment{CPUPressure: 2, CPUPressureKnown: true, Load1Start: 0.2, Load1End: 0.3}},
		{"contended", at(0, 5e6, true, 15), at(10, 5e6+9_400_000, true, 48), Environment{CPUPressure: 94, CPUPressureKnown: true, Load1Start: 15, Load1End: 48}},
		{"read late: above the window", at(0, 0, true, 1), at(1, 1_100_000, true, 1), Environment{CPUPressure: 100, CPUPressureKnown: true, Load1Start: 1, Load1End: 1}},
		{"no PSI", at(0, 0, false, 1), at(10, 0, false, 2), Environment{Load1Start: 1, Load1End: 2}},
		{"PSI only at the end", at(0, 0, false, 1), at(10, 5, true, 2), Environment{Load1Start: 1, Load1End: 2}},
		{"counter went back", at(0, 100, true, 1), at(10, 5, true, 1), Environment{Load1Start: 1, Load1End: 1}},
		{"no window", at(10, 0, true, 1), at(10, 5, true, 1), Environment{Load1Start: 1, Load1End: 1}},
		{"clock went back", at(10, 0, true, 1), at(0, 5, true, 1), Environment{Load1Start: 1, Load1End: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EnvironmentBetween(tt.start, tt.end)
			if math.Abs(got.CPUPressure-tt.want.CPUPressure) > 1e-9 || got.CPUPressureKnown != tt.want.CPUPressureKnown ||
				got.Load1Start != tt.want.Load1Start || got.Load1End != tt.want.Load1End {
				t.Errorf("%+v, want %+v", *got, tt.want)
			}
		})
	}
}

// FuzzParsePressure: any bytes give a count or a named error, never a
// panic.
func FuzzParsePressure(f *testing.F) {
	f.Add([]byte(psiText))
	f.Add([]byte("some total="))
	f.Add([]byte("some\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := ParsePressure(b); err != nil && err.Error() == "" {
			t.Fatal("unnamed error")
		}
	})
}

// FuzzParseLoadavg: any bytes give a finite load ≥ 0 or an error.
func FuzzParseLoadavg(f *testing.F) {
	f.Add([]byte("1.84 0.46 0.15 4/137 4380\n"))
	f.Add([]byte("1e400"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseLoadavg(b)
		if err == nil && (v < 0 || !isFinite(v)) {
			t.Fatalf("%q: load %v", b, v)
		}
		if err != nil && v != 0 {
			t.Fatalf("%q: load %v with error %v", b, v, err)
		}
	})
}
