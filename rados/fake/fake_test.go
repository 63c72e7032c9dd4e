package fake_test

import (
	"testing"

	"github.com/radoscp/radoscp/rados/fake"
	"github.com/radoscp/radoscp/rados/objtest"
)

func TestConformance(t *testing.T) {
	s := fake.New()
	objtest.Run(t, s.Pool("a"), s.Pool("b"), "conf")
}
