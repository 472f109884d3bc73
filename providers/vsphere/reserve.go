package vsphere

import (
	"slices"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/providers"
)

// latencyLevels are the latency_sensitivity values (vim.LatencySensitivity.
// SensitivityLevel; "custom" is deprecated and not offered).
var latencyLevels = []string{"low", "normal", "medium", "high"}

// checkReservations validates cpu_reservation_mhz, reserve_memory and
// latency_sensitivity, pointing at the attribute.
func (c Config) checkReservations(cd *providers.ConfigDiags) {
	if c.CPUReservationMHz < 0 {
		cd.Errorf("cpu_reservation_mhz", "Invalid cpu_reservation_mhz", "cpu_reservation_mhz must be zero or more MHz.")
	}
	if c.LatencySensitivity != "" && !slices.Contains(latencyLevels, c.LatencySensitivity) {
		cd.Errorf("latency_sensitivity", "Invalid latency_sensitivity", "latency_sensitivity must be one of %s, got %q.", strings.Join(latencyLevels, ", "), c.LatencySensitivity)
	}
	if c.LatencySensitivity == "high" && !c.ReserveMemory {
		cd.Errorf("latency_sensitivity", "High latency sensitivity needs reserved memory",
			"vSphere powers on a VM with latency sensitivity high only with all its memory reserved: set reserve_memory = true.")
	}
}

// reservations adds the provider block's CPU reservation, memory
// reservation and latency sensitivity to a clone's reconfigure spec.
func (c Config) reservations(cs *types.VirtualMachineConfigSpec) {
	if c.CPUReservationMHz > 0 {
		cs.CpuAllocation = &types.ResourceAllocationInfo{Reservation: types.NewInt64(c.CPUReservationMHz)}
	}
	if c.ReserveMemory {
		cs.MemoryReservationLockedToMax = types.NewBool(true)
	}
	if c.LatencySensitivity != "" {
		cs.LatencySensitivity = &types.LatencySensitivity{Level: types.LatencySensitivitySensitivityLevel(c.LatencySensitivity)}
	}
}

// reservationSettings describes them for provenance ("" when none is set).
func (c Config) reservationSettings() string {
	var s []string
	if c.CPUReservationMHz > 0 {
		s = append(s, "cpu_reservation_mhz="+strconv.FormatInt(c.CPUReservationMHz, 10))
	}
	if c.ReserveMemory {
		s = append(s, "reserve_memory=true")
	}
	if c.LatencySensitivity != "" {
		s = append(s, "latency_sensitivity="+c.LatencySensitivity)
	}
	return strings.Join(s, " ")
}
