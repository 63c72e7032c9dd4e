package rados

import gorados "github.com/ceph/go-ceph/rados"

/*
#include <rados/librados.h>
*/
import "C"

// failWhenFull makes writes through io fail when their pool is full or
// over its quota, with ENOSPC or EDQUOT from the OSD, instead of waiting
// in the client until space is freed (rados_set_pool_full_try: every op
// carries CEPH_OSD_FLAG_FULL_TRY). Ops that add no bytes or objects
// (setting striper.size on an existing object, removes, lock renewals)
// still succeed on a full pool, so a failed copy can publish its prefix
// and cut back the rest.
func failWhenFull(io *gorados.IOContext) {
	C.rados_set_pool_full_try(C.rados_ioctx_t(io.Pointer()))
}
