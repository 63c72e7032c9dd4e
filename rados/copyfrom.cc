// COPY_FROM2 with the destination's truncate generation on the wire.
//
// librados' ObjectWriteOperation::copy_from2 takes truncate_seq and
// truncate_size but builds the op with copy-from flags 0, and the OSD reads
// them only when CEPH_OSD_COPY_FROM_FLAG_TRUNCATE_SEQ is set; otherwise it
// gives the destination the source object's truncate_seq. No public API sets
// that flag, so set_truncate_flag() below finds the op librados just built
// and sets it, after checking every field it can see against what it was
// asked to build. Any mismatch refuses the copy: a mangled op is never sent.
//
// The op's snapid is the snapshot the OSD reads the source at: librados
// takes it from the source ioctx's read snap (CEPH_NOSNAP for head). It is
// checked against the snap the caller opened the source at, so a copy of
// a snapshot never silently copies head.

#include "radoscp.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <rados/librados.hpp>

namespace {

// The wire struct ceph_osd_op (include/rados.h), packed, as far as the
// copy_from member of its union. Only read and compared here; the single
// write is to copy_from_flags.
struct __attribute__((packed)) osd_op_copy_from {
	uint16_t op;
	uint32_t flags;
	uint64_t snapid;
	uint64_t src_version;
	uint8_t copy_from_flags;
	uint32_t src_fadvise_flags;
	uint8_t union_rest[7];  // the union is 28 bytes; copy_from uses 21
	uint32_t payload_len;
};
static_assert(sizeof(osd_op_copy_from) == 38, "ceph_osd_op is 38 bytes");
static_assert(offsetof(osd_op_copy_from, copy_from_flags) == 0x16,
	      "copy-from flags byte sits at 0x16");

constexpr uint16_t kOpCopyFrom2 = 0x222d;       // CEPH_OSD_OP_COPY_FROM2
constexpr uint8_t kFlagTruncateSeq = 0x20;      // CEPH_OSD_COPY_FROM_FLAG_TRUNCATE_SEQ

// librados::ObjectOperationImpl begins with Objecter's ObjectOperation, whose
// first member is ops, a boost small_vector<OSDOp, 2>: a pointer to the
// elements, then the size and capacity. OSDOp begins with ceph_osd_op.
struct small_vector_header {
	void *start;
	size_t size;
	size_t capacity;
};

// Gives access to ObjectOperation's protected impl pointer.
class FlaggableWriteOp : public librados::ObjectWriteOperation {
public:
	int set_truncate_flag(const radoscp_copy_args *a, uint32_t op_flags)
	{
		if (impl == nullptr)
			return -RADOSCP_ELAYOUT;
		auto *ops = reinterpret_cast<small_vector_header *>(impl);
		if (ops->size != 1 || ops->capacity < 1 || ops->start == nullptr)
			return -RADOSCP_ELAYOUT;
		osd_op_copy_from got;
		std::memcpy(&got, ops->start, sizeof(got));
		static const uint8_t zero[sizeof(got.union_rest)] = {};
		if (got.op != kOpCopyFrom2 || got.flags != op_flags ||
		    got.snapid != a->src_snap || got.src_version != a->src_version ||
		    got.copy_from_flags != 0 ||
		    got.src_fadvise_flags != a->src_fadvise ||
		    std::memcmp(got.union_rest, zero, sizeof(zero)) != 0 ||
		    got.payload_len != 0)
			return -RADOSCP_ELAYOUT;
		auto *bytes = static_cast<uint8_t *>(ops->start);
		bytes[offsetof(osd_op_copy_from, copy_from_flags)] = kFlagTruncateSeq;
		return 0;
	}
};

}  // namespace

static uint64_t now_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
}

// One copy in flight: owned by the submission until aio_operate has taken
// it, then by on_complete, which frees it.
struct radoscp_copy {
	FlaggableWriteOp op;
	librados::AioCompletion *completion = nullptr;
	uint64_t id = 0;
	uint64_t submitted_ns = 0;
	~radoscp_copy()
	{
		if (completion != nullptr)
			completion->release();
	}
};

// on_complete runs on a librados finisher thread when the OSD has
// answered. It frees the copy (releasing the completion inside its own
// callback is allowed: librados holds a reference until the callback
// returns) and hands the result to Go by id; C keeps no Go pointer.
static void on_complete(librados::completion_t, void *arg)
{
	auto *c = static_cast<radoscp_copy *>(arg);
	int r = c->completion->get_return_value();
	uint64_t version = c->completion->get_version64();
	uint64_t latency = now_ns() - c->submitted_ns;
	uint64_t id = c->id;
	delete c;
	radoscpCopyDone(id, r, version, latency);
}

extern "C" int radoscp_copy_submit(rados_ioctx_t dst, rados_ioctx_t src,
				   const radoscp_copy_args *a, uint64_t id)
{
	try {
		librados::IoCtx dst_io, src_io;
		librados::IoCtx::from_rados_ioctx_t(dst, dst_io);
		librados::IoCtx::from_rados_ioctx_t(src, src_io);
		std::string src_oid(a->src_oid, a->src_oid_len);
		std::string dst_oid(a->dst_oid, a->dst_oid_len);

		// Freed on every return below, and on every exception, until
		// aio_operate has queued it.
		std::unique_ptr<radoscp_copy> c(new radoscp_copy);
		c->id = id;
		c->op.copy_from2(src_oid, src_io, a->src_version,
				 a->truncate_seq, a->truncate_size, a->src_fadvise);
		// Fadvise values are the same in LIBRADOS_OP_FLAG_* and
		// CEPH_OSD_OP_FLAG_*, so the op carries them unchanged.
		uint32_t op_flags = 0;
		if (a->dst_fadvise != 0) {
			c->op.set_op_flags2(static_cast<int>(a->dst_fadvise));
			op_flags = a->dst_fadvise;
		}
		if (a->with_truncate) {
			int r = c->op.set_truncate_flag(a, op_flags);
			if (r < 0)
				return r;
		}
		c->completion = librados::Rados::aio_create_completion(c.get(), on_complete);
		c->submitted_ns = now_ns();
		// aio_operate fails only before it queues the op, and then the
		// callback never runs; once it has queued it, on_complete owns c
		// and may already have freed it.
		int r = dst_io.aio_operate(dst_oid, c->completion, &c->op);
		if (r < 0)
			return r;
		c.release();
		return 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int radoscp_copy_probe(rados_ioctx_t io)
{
	try {
		librados::IoCtx ioctx;
		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		radoscp_copy_args a = {};
		a.src_oid = "probe";
		a.src_oid_len = 5;
		// The probe reads at head: the op's snapid is CEPH_NOSNAP.
		a.src_snap = LIBRADOS_SNAP_HEAD;
		a.src_version = 0x0102030405060708ULL;
		a.src_fadvise = LIBRADOS_OP_FLAG_FADVISE_SEQUENTIAL;
		a.with_truncate = 1;
		a.truncate_seq = 7;
		a.truncate_size = 9;
		FlaggableWriteOp op;
		op.copy_from2("probe", ioctx, a.src_version, a.truncate_seq,
			      a.truncate_size, a.src_fadvise);
		return op.set_truncate_flag(&a, 0);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int radoscp_stat_version(rados_ioctx_t io, const char *oid,
				    size_t oid_len, uint64_t *size,
				    int64_t *mtime_sec, int64_t *mtime_nsec,
				    uint64_t *version)
{
	try {
		librados::IoCtx ioctx;
		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		librados::ObjectReadOperation op;
		struct timespec ts = {};
		int stat_rval = 0;
		op.stat2(size, &ts, &stat_rval);
		librados::AioCompletion *c = librados::Rados::aio_create_completion();
		int r = ioctx.aio_operate(std::string(oid, oid_len), c, &op, nullptr);
		if (r == 0) {
			c->wait_for_complete();
			r = c->get_return_value();
			*version = c->get_version64();
		}
		c->release();
		if (r < 0)
			return r;
		*mtime_sec = ts.tv_sec;
		*mtime_nsec = ts.tv_nsec;
		return stat_rval;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}
