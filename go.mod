module github.com/radoscp/radoscp

go 1.26.0

require (
	github.com/ceph/go-ceph v0.30.0
	golang.org/x/sys v0.48.0
)

require github.com/stretchr/testify v1.11.1 // indirect
