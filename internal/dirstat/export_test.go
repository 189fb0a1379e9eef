package dirstat

// RawListing: ListTypes reads the kernel's records itself (Linux).
const RawListing = rawListing

// ForceUnknownTypes makes ListTypes take every type as unknown (DT_UNKNOWN)
// until the returned function is called.
func ForceUnknownTypes(on bool) func() {
	prev := forceUnknown
	forceUnknown = on
	return func() { forceUnknown = prev }
}

// BeforeTypeLookup runs fn before ListTypes lstats the names of unknown
// type, until the returned function is called.
func BeforeTypeLookup(fn func()) func() {
	prev := beforeTypeLookup
	beforeTypeLookup = fn
	return func() { beforeTypeLookup = prev }
}
