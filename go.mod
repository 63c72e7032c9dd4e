module github.com/radoscp/radoscp

go 1.26

require (
	github.com/ceph/go-ceph v0.30.0
	github.com/prometheus/client_golang v1.25.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/viper v1.21.0
	golang.org/x/sync v0.25.0
)
