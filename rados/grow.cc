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
