// Declarations of radoscp's small C++ layer over librados.hpp. Go calls only
// these C functions; no C or C++ code here keeps a Go pointer.
#ifndef RADOSCP_RADOSCP_H
#define RADOSCP_RADOSCP_H

#include <stdint.h>
#include <stddef.h>
#include <rados/librados.h>

#ifdef __cplusplus
extern "C" {
#endif

// Returned when the op librados built does not look exactly like the
// COPY_FROM2 radoscp expects, so its truncate flag cannot be set safely.
// The op is not sent. Distinct from every errno librados returns.
#define RADOSCP_ELAYOUT 4095

typedef struct radoscp_copy_args {
	const char *src_oid;
	size_t src_oid_len;
	const char *dst_oid;
	size_t dst_oid_len;
	uint64_t src_version;  // 0: any version
	uint64_t src_snap;     // the source ioctx's read snap (CEPH_NOSNAP: head)
	uint32_t src_fadvise;  // LIBRADOS_OP_FLAG_FADVISE_* for reading the source
	uint32_t dst_fadvise;  // LIBRADOS_OP_FLAG_FADVISE_* for writing the destination
	int with_truncate;     // set CEPH_OSD_COPY_FROM_FLAG_TRUNCATE_SEQ
	uint32_t truncate_seq;
	uint64_t truncate_size;
} radoscp_copy_args;

// radoscp_copy_submit issues COPY_FROM2 (ObjectWriteOperation::copy_from2
// plus aio_operate) of args->src_oid in src into args->dst_oid in dst. It
// returns 0 once the op is queued, or a negative errno (or
// -RADOSCP_ELAYOUT) with nothing sent and nothing left allocated. A queued
// copy reports exactly once, from a librados thread, through the Go
// function radoscpCopyDone(id, result, version, latency_ns); the copy's memory is
// freed by then, and C holds no Go pointer at any time.
int radoscp_copy_submit(rados_ioctx_t dst, rados_ioctx_t src,
			const radoscp_copy_args *args, uint64_t id);

// radoscpCopyDone is implemented in Go (rados/copy.go, //export): result is
// the OSD's answer (0 or a negative errno), version the user version of
// its reply (for a copy-from, the source object's version it copied),
// latency_ns the time from submission to completion.
void radoscpCopyDone(uint64_t id, int result, uint64_t version, uint64_t latency_ns);

// radoscp_copy_probe builds, on io, the COPY_FROM2 op radoscp_copy_submit
// would and checks that its truncate flag can be set (the layout check of
// set_truncate_flag), without sending anything. Returns 0, -RADOSCP_ELAYOUT
// when librados builds an op radoscp does not recognise, or another
// negative errno.
int radoscp_copy_probe(rados_ioctx_t io);

// radoscp_stat_version stats an object (ObjectReadOperation::stat2) and
// reports its size, mtime and object version. Returns 0 or a negative errno.
int radoscp_stat_version(rados_ioctx_t io, const char *oid, size_t oid_len,
			 uint64_t *size, int64_t *mtime_sec, int64_t *mtime_nsec,
			 uint64_t *version);

// radoscp_stat_submit stats an object (ObjectReadOperation::stat2 plus
// aio_operate) without waiting. It returns 0 once the op is queued, or a
// negative errno with nothing sent and nothing left allocated. A queued
// stat reports exactly once, from a librados thread, through the Go
// function radoscpStatDone; its memory is freed by then, and C holds no Go
// pointer at any time.
int radoscp_stat_submit(rados_ioctx_t io, const char *oid, size_t oid_len,
			uint64_t id);

// radoscpStatDone is implemented in Go (rados/stat.go, //export): result
// is 0 or a negative errno; size, mtime and version are valid when it is 0.
void radoscpStatDone(uint64_t id, int result, uint64_t size,
		     int64_t mtime_sec, int64_t mtime_nsec, uint64_t version);

// radoscp_grow_xattr sets the decimal xattr name of oid to value only if
// value is greater than the number it holds, atomically
// (ObjectWriteOperation::cmpxattr with LIBRADOS_CMPXATTR_OP_GT, then
// setxattr), as libradosstriper grows striper.size. Returns 0, -ECANCELED
// when the stored value is not smaller, or another negative errno.
int radoscp_grow_xattr(rados_ioctx_t io, const char *oid, size_t oid_len,
		       const char *name, uint64_t value);

// radoscp_reset_xattr sets the decimal xattr name of oid to 0 and truncates
// oid's data to 0 bytes, in one op, only if the xattr holds expect
// (cmpxattr LIBRADOS_CMPXATTR_OP_EQ, setxattr, truncate), and sets xattr
// also_name to also_value in the same op if also_name is not NULL: how a
// striped object is emptied before it is replaced. Returns 0, -ECANCELED
// when the value differs, or another negative errno.
int radoscp_reset_xattr(rados_ioctx_t io, const char *oid, size_t oid_len,
			const char *name, uint64_t expect, const char *also_name,
			const char *also_value, size_t also_len);

// radoscp_remove_if_xattr removes oid only if its xattr name still holds
// value (cmpxattr LIBRADOS_CMPXATTR_OP_EQ, then remove, in one op): plain
// read and write ops, which `allow rw` caps permit. Returns 0, -ECANCELED
// when the value differs (nothing changed), or another negative errno.
int radoscp_remove_if_xattr(rados_ioctx_t io, const char *oid, size_t oid_len,
			    const char *name, const char *value,
			    size_t value_len);

// radoscp_checksum64 has the OSD compute the xxhash64 (seed 0) of oid's
// bytes [off, off+len) (IoCtx::checksum, LIBRADOS_CHECKSUM_TYPE_XXHASH64,
// one chunk), so that no data crosses to the client. Returns 0 or a
// negative errno.
int radoscp_checksum64(rados_ioctx_t io, const char *oid, size_t oid_len,
		       uint64_t off, uint64_t len, uint64_t *sum);

#ifdef __cplusplus
}
#endif

#endif
