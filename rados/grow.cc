// Growing a decimal-number xattr atomically, the way libradosstriper grows
// striper.size, so radoscp and libradosstriper writers never shrink each
// other's size.

#include "radoscp.h"

#include <cerrno>
#include <string>
#include <rados/librados.hpp>

extern "C" int radoscp_grow_xattr(rados_ioctx_t io, const char *oid,
				  size_t oid_len, const char *name,
				  uint64_t value)
{
	try {
		librados::IoCtx ioctx;
		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		librados::ObjectWriteOperation op;
		op.cmpxattr(name, LIBRADOS_CMPXATTR_OP_GT, value);
		librados::bufferlist bl;
		bl.append(std::to_string(value));
		op.setxattr(name, bl);
		return ioctx.operate(std::string(oid, oid_len), &op);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int radoscp_reset_xattr(rados_ioctx_t io, const char *oid,
				   size_t oid_len, const char *name,
				   uint64_t expect, const char *also_name,
				   const char *also_value, size_t also_len)
{
	try {
		librados::IoCtx ioctx;
		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		librados::ObjectWriteOperation op;
		op.cmpxattr(name, LIBRADOS_CMPXATTR_OP_EQ, expect);
		librados::bufferlist bl;
		bl.append("0");
		op.setxattr(name, bl);
		op.truncate(0);
		if (also_name != nullptr) {
			librados::bufferlist also;
			also.append(also_value, also_len);
			op.setxattr(also_name, also);
		}
		return ioctx.operate(std::string(oid, oid_len), &op);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int radoscp_remove_if_xattr(rados_ioctx_t io, const char *oid,
				       size_t oid_len, const char *name,
				       const char *value, size_t value_len)
{
	try {
		librados::IoCtx ioctx;
		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		librados::ObjectWriteOperation op;
		librados::bufferlist v;
		v.append(value, value_len);
		op.cmpxattr(name, LIBRADOS_CMPXATTR_OP_EQ, v);
		op.remove();
		return ioctx.operate(std::string(oid, oid_len), &op);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}

extern "C" int radoscp_checksum64(rados_ioctx_t io, const char *oid,
				  size_t oid_len, uint64_t off, uint64_t len,
				  uint64_t *sum)
{
	try {
		librados::IoCtx ioctx;
		librados::IoCtx::from_rados_ioctx_t(io, ioctx);
		librados::bufferlist init, out;
		uint64_t seed = 0;
		init.append(reinterpret_cast<const char *>(&seed), sizeof(seed));
		int r = ioctx.checksum(std::string(oid, oid_len),
				       LIBRADOS_CHECKSUM_TYPE_XXHASH64, init,
				       len, off, 0, &out);
		if (r < 0)
			return r;
		// The reply: a u32 count of checksums, then each (u64 here).
		if (out.length() < 12)
			return -EPROTO;
		out.begin(4).copy(8, reinterpret_cast<char *>(sum));
		return 0;
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
}
