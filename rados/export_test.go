package rados

// PendingCallbacks is how many copies and stats are registered for a
// completion that has not come: none once every one has completed.
func PendingCallbacks() (copies, stats int) { return copiesInFlight.len(), statsInFlight.len() }
