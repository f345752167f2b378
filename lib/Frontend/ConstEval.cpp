//===- ConstEval.cpp - Compile-time values and folding ---------------------===//

#include "tic/Frontend/ConstEval.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

using namespace tic;
using namespace tic::sema;

//===----------------------------------------------------------------------===//
// ConstValue
//===----------------------------------------------------------------------===//

ConstValue ConstValue::makeInt(int64_t v, const Type *t) {
  ConstValue c;
  c.kind = Kind::Int;
  c.i = v;
  c.type = t;
  return c;
}
ConstValue ConstValue::makeFloat(double v, const Type *t) {
  ConstValue c;
  c.kind = Kind::Float;
  c.f = v;
  c.type = t;
  return c;
}
ConstValue ConstValue::makeBool(bool v, const Type *t) {
  ConstValue c;
  c.kind = Kind::Bool;
  c.b = v;
  c.type = t;
  return c;
}
ConstValue ConstValue::makeString(std::string v, const Type *t) {
  ConstValue c;
  c.kind = Kind::String;
  c.s = std::move(v);
  c.type = t;
  return c;
}
ConstValue ConstValue::makeAggregate(std::vector<ConstValue> es, const Type *t) {
  ConstValue c;
  c.kind = Kind::Aggregate;
  c.elems = std::move(es);
  c.type = t;
  return c;
}
ConstValue ConstValue::makeType(const Type *t) {
  ConstValue c;
  c.kind = Kind::Type;
  c.type = t;
  return c;
}

bool ConstValue::isExactFloat() const {
  if (kind == Kind::Float)
    return exact;
  if (kind != Kind::Aggregate || elems.empty())
    return false;
  for (const ConstValue &e : elems)
    if (!e.isExactFloat())
      return false;
  return true;
}

/// Whether `v` may take part in exact (double) folding: an integer, a bool
/// or an exact float.
static bool foldsExactly(const ConstValue &v) {
  return v.kind == ConstValue::Kind::Int || v.kind == ConstValue::Kind::Bool ||
         (v.kind == ConstValue::Kind::Float && v.exact);
}

static ConstValue makeExactFloat(double v, const Type *t) {
  ConstValue c = ConstValue::makeFloat(v, t);
  c.exact = true;
  return c;
}

double ConstValue::asDouble() const {
  switch (kind) {
  case Kind::Int: {
    auto *s = dynamic_cast<const ScalarType *>(type);
    if (s && !s->isSigned && s->bits == 64)
      return double(uint64_t(i));
    return double(i);
  }
  case Kind::Float: return f;
  case Kind::Bool: return b ? 1 : 0;
  default: return 0;
  }
}

int64_t ConstValue::asInt() const {
  switch (kind) {
  case Kind::Int: return i;
  case Kind::Float: return int64_t(f);
  case Kind::Bool: return b;
  default: return 0;
  }
}

static std::string fmtFloat(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(17);
  os << v;
  std::string s = os.str();
  // Shortest representation that round-trips.
  for (int p = 1; p <= 17; ++p) {
    std::ostringstream t;
    t.precision(p);
    t << v;
    if (std::strtod(t.str().c_str(), nullptr) == v) {
      s = t.str();
      break;
    }
  }
  if (s.find_first_of(".eni") == std::string::npos)
    s += ".0";
  return s;
}

std::string ConstValue::str() const {
  switch (kind) {
  case Kind::Int: {
    auto *s = dynamic_cast<const ScalarType *>(type);
    if (s && !s->isSigned && s->bits == 64)
      return std::to_string(uint64_t(i));
    return std::to_string(i);
  }
  case Kind::Float: {
    auto *s = dynamic_cast<const ScalarType *>(type);
    if (s && s->bits == 32)
      return fmtFloat(double(float(f)));
    return fmtFloat(f);
  }
  case Kind::Bool: return b ? "true" : "false";
  case Kind::String: {
    std::string r = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\')
        r += '\\';
      if (c == '\n') {
        r += "\\n";
        continue;
      }
      r += c;
    }
    return r + "\"";
  }
  case Kind::Aggregate: {
    std::string r = type && type->kind() == Type::Kind::Tuple ? "(" : "[";
    auto *m = dynamic_cast<const MatrixType *>(type);
    if (m) {
      for (unsigned row = 0; row < m->rows; ++row) {
        r += row ? ", [" : "[";
        for (unsigned c = 0; c < m->cols; ++c) {
          size_t idx = row * m->cols + c;
          r += (c ? ", " : "") + (idx < elems.size() ? elems[idx].str() : "?");
        }
        r += "]";
      }
      return r + "]";
    }
    for (size_t k = 0; k < elems.size(); ++k)
      r += (k ? ", " : "") + elems[k].str();
    return r + (type && type->kind() == Type::Kind::Tuple ? ")" : "]");
  }
  case Kind::Type: return type ? type->str() : "?";
  }
  return "?";
}

bool ConstValue::operator==(const ConstValue &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Kind::Int: return i == o.i;
  case Kind::Float: return f == o.f || (std::isnan(f) && std::isnan(o.f));
  case Kind::Bool: return b == o.b;
  case Kind::String: return s == o.s;
  case Kind::Aggregate: return elems == o.elems;
  case Kind::Type: return type == o.type;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Folding
//===----------------------------------------------------------------------===//

int64_t sema::wrapInt(int64_t v, const ScalarType *t) {
  if (t->isBool())
    return v != 0;
  if (t->bits >= 64)
    return v;
  uint64_t mask = (uint64_t(1) << t->bits) - 1;
  uint64_t u = uint64_t(v) & mask;
  if (t->isSigned && (u >> (t->bits - 1)) & 1)
    u |= ~mask;
  return int64_t(u);
}

static double roundToHalf(double v) {
  // Round to the nearest IEEE binary16 value (ties to even).
  if (v == 0 || std::isnan(v) || std::isinf(v))
    return v;
  double a = std::fabs(v);
  if (a >= 65520.0)
    return std::copysign(INFINITY, v);
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1;    // a = 1.x * 2^exp
  if (exp < -14)
    exp = -14;        // subnormals: fixed quantum 2^-24
  double quantum = std::ldexp(1.0, exp - 10);
  double r = std::nearbyint(a / quantum) * quantum;
  return std::copysign(r, v);
}

double sema::roundFloat(double v, const ScalarType *t) {
  if (t->bits == 32)
    return double(float(v));
  if (t->bits == 16)
    return roundToHalf(v);
  return v;
}

static ConstValue convertScalar(const ConstValue &v, const ScalarType *to,
                                bool keepExact = false) {
  if (to->isBool())
    return ConstValue::makeBool(v.kind == ConstValue::Kind::Float ? v.f != 0
                                                                  : v.asInt() != 0,
                                to);
  if (to->isFloat()) {
    if (keepExact && foldsExactly(v))
      return makeExactFloat(v.asDouble(), to);
    return ConstValue::makeFloat(roundFloat(v.asDouble(), to), to);
  }
  // to integer: truncate toward zero and saturate to the type's range, NaN
  // gives 0 (docs/semantics.md; the generated code does the same).
  if (v.kind == ConstValue::Kind::Float) {
    double d = std::trunc(v.f);
    double lo = to->isSigned ? -std::ldexp(1.0, int(to->bits) - 1) : 0.0;
    double hi = std::ldexp(1.0, int(to->bits) - (to->isSigned ? 1 : 0));
    int64_t i;
    if (std::isnan(d))
      i = 0;
    else if (d < lo)
      i = !to->isSigned    ? 0
          : to->bits == 64 ? std::numeric_limits<int64_t>::min()
                           : -(int64_t(1) << (to->bits - 1));
    else if (d >= hi)
      i = to->isSigned
              ? int64_t((uint64_t(1) << (to->bits - 1)) - 1)
              : int64_t(to->bits == 64 ? ~uint64_t(0)
                                       : (uint64_t(1) << to->bits) - 1);
    else if (!to->isSigned && to->bits == 64)
      i = int64_t(uint64_t(d));
    else
      i = int64_t(d);
    return ConstValue::makeInt(wrapInt(i, to), to);
  }
  return ConstValue::makeInt(wrapInt(v.asInt(), to), to);
}

ConstValue sema::convertConst(const ConstValue &v, const Type *to,
                              TypeContext &ctx, bool keepExact) {
  if (auto *s = dynamic_cast<const ScalarType *>(to)) {
    if (v.kind == ConstValue::Kind::Aggregate)
      return v; // caller checked shapes; nothing sensible to do
    return convertScalar(v, s, keepExact);
  }
  if (to->isTensor()) {
    auto *e = static_cast<const ScalarType *>(elementType(to));
    unsigned n = 0;
    if (auto *vt = dynamic_cast<const VectorType *>(to))
      n = vt->size;
    else {
      auto *m = static_cast<const MatrixType *>(to);
      n = m->rows * m->cols;
    }
    std::vector<ConstValue> es;
    for (unsigned k = 0; k < n; ++k) {
      if (v.kind == ConstValue::Kind::Aggregate)
        es.push_back(k < v.elems.size()
                         ? convertScalar(v.elems[k], e, keepExact)
                         : ConstValue::makeInt(0, e));
      else
        es.push_back(convertScalar(v, e, keepExact)); // broadcast
    }
    return ConstValue::makeAggregate(std::move(es), to);
  }
  ConstValue r = v;
  r.type = to;
  return r;
}

static int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

/// The exact value of an integer result before it wraps to `rt`, if the
/// operation overflows (an `__int128` result outside `rt`'s range).
static bool overflows(__int128 exact, const ScalarType *rt) {
  if (rt->isBool())
    return false;
  __int128 lo, hi;
  if (rt->isSigned) {
    lo = -(__int128(1) << (rt->bits - 1));
    hi = (__int128(1) << (rt->bits - 1)) - 1;
  } else {
    lo = 0;
    hi = (__int128(1) << rt->bits) - 1;
  }
  return exact < lo || exact > hi;
}

static std::string int128Text(__int128 v) {
  if (v == 0)
    return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : v;
  std::string r;
  while (u) {
    r.insert(r.begin(), char('0' + int(u % 10)));
    u /= 10;
  }
  return neg ? "-" + r : r;
}

static std::optional<ConstValue>
foldScalar(ast::BinaryOp op, const ConstValue &a, const ConstValue &b,
           const ScalarType *rt, std::string &error, std::string *warning) {
  using ast::BinaryOp;
  bool isFloatOp = a.kind == ConstValue::Kind::Float ||
                   b.kind == ConstValue::Kind::Float || rt->isFloat();
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    bool x = a.asDouble() != 0, y = b.asDouble() != 0;
    bool r = op == BinaryOp::And ? (x && y) : (x || y);
    if (rt->isBool())
      return ConstValue::makeBool(r, rt);
    return ConstValue::makeInt(r, rt);
  }
  if (isFloatOp && (op == BinaryOp::Add || op == BinaryOp::Sub ||
                    op == BinaryOp::Mul || op == BinaryOp::Div ||
                    op == BinaryOp::FloorDiv || op == BinaryOp::Mod ||
                    op == BinaryOp::Pow)) {
    double x = a.asDouble(), y = b.asDouble(), r = 0;
    switch (op) {
    case BinaryOp::Add: r = x + y; break;
    case BinaryOp::Sub: r = x - y; break;
    case BinaryOp::Mul: r = x * y; break;
    case BinaryOp::Div: r = x / y; break;
    case BinaryOp::FloorDiv: r = std::floor(x / y); break;
    case BinaryOp::Mod: r = x - y * std::floor(x / y); break;
    case BinaryOp::Pow: r = std::pow(x, y); break;
    default: break;
    }
    if (!rt->isFloat())
      return convertScalar(ConstValue::makeFloat(r, nullptr), rt);
    // Exact operands fold in double and stay exact (rounded once, at use).
    if (foldsExactly(a) && foldsExactly(b))
      return makeExactFloat(r, rt);
    return ConstValue::makeFloat(roundFloat(r, rt), rt);
  }
  bool uns = !rt->isSigned && rt->bits == 64;
  int64_t x = a.asInt(), y = b.asInt();
  uint64_t ux = uint64_t(x), uy = uint64_t(y);
  int64_t r = 0;
  switch (op) {
  case BinaryOp::Add: r = int64_t(ux + uy); break;
  case BinaryOp::Sub: r = int64_t(ux - uy); break;
  case BinaryOp::Mul: r = int64_t(ux * uy); break;
  case BinaryOp::Div: // integer `/` is folded as floats by the caller
  case BinaryOp::FloorDiv:
  case BinaryOp::Mod:
    if (y == 0) {
      error = "division by zero in a constant expression";
      return std::nullopt;
    }
    if (uns) {
      r = op == BinaryOp::Mod ? int64_t(ux % uy) : int64_t(ux / uy);
    } else if (x == std::numeric_limits<int64_t>::min() && y == -1) {
      r = op == BinaryOp::Mod ? 0 : x;
    } else if (op == BinaryOp::Mod) {
      r = x - floorDivInt(x, y) * y;
    } else {
      r = floorDivInt(x, y);
    }
    break;
  case BinaryOp::Pow: {
    if (y < 0) {
      error = "negative exponent in an integer power";
      return std::nullopt;
    }
    uint64_t acc = 1, base = ux;
    for (int64_t e = y; e > 0; e >>= 1) {
      if (e & 1)
        acc *= base;
      base *= base;
    }
    r = int64_t(acc);
    break;
  }
  case BinaryOp::Shl: r = (y < 0 || y >= 64) ? 0 : int64_t(ux << y); break;
  case BinaryOp::Shr:
    if (y < 0 || y >= 64)
      r = (rt->isSigned && x < 0) ? -1 : 0;
    else
      r = rt->isSigned ? (x >> y) : int64_t((ux & (rt->bits >= 64 ? ~0ull : ((1ull << rt->bits) - 1))) >> y);
    break;
  case BinaryOp::BitAnd: r = x & y; break;
  case BinaryOp::BitOr: r = x | y; break;
  case BinaryOp::BitXor: r = x ^ y; break;
  default: break;
  }
  if (rt->isBool())
    return ConstValue::makeBool(r != 0, rt);
  int64_t wrapped = wrapInt(r, rt);
  // Integer arithmetic wraps, at run time as here; a constant expression
  // that wraps is reported (a warning: the value is the run-time one).
  if (warning && !uns) {
    __int128 ex = 0;
    bool known = true, huge = false;
    switch (op) {
    case BinaryOp::Add:
      ex = __int128(x) + y;
      break;
    case BinaryOp::Sub:
      ex = __int128(x) - y;
      break;
    case BinaryOp::Mul:
      ex = __int128(x) * y;
      break;
    case BinaryOp::FloorDiv:
      ex = x == std::numeric_limits<int64_t>::min() && y == -1
               ? -__int128(x)
               : __int128(wrapped);
      break;
    case BinaryOp::Pow: {
      ex = 1;
      for (int64_t e = 0; e < y && !huge; ++e) {
        ex *= x;
        huge = ex > (__int128(1) << 64) || ex < -(__int128(1) << 64);
      }
      break;
    }
    default:
      known = false;
      break;
    }
    if (known && (huge || overflows(ex, rt)))
      *warning = "integer overflow in a constant expression: the result" +
                 (huge ? std::string() : " " + int128Text(ex)) +
                 " does not fit in '" + rt->str() + "' and wraps to " +
                 std::to_string(wrapped);
  }
  return ConstValue::makeInt(wrapped, rt);
}

std::optional<ConstValue>
sema::foldBinary(ast::BinaryOp op, const ConstValue &a, const ConstValue &b,
                 const Type *resultType, TypeContext &ctx, std::string &error,
                 std::string *warning) {
  if (auto *s = dynamic_cast<const ScalarType *>(resultType)) {
    if (a.kind == ConstValue::Kind::Aggregate || b.kind == ConstValue::Kind::Aggregate)
      return std::nullopt;
    return foldScalar(op, a, b, s, error, warning);
  }
  if (!resultType->isTensor() || op == ast::BinaryOp::MatMul)
    return std::nullopt;
  auto *e = static_cast<const ScalarType *>(elementType(resultType));
  size_t n = std::max(a.kind == ConstValue::Kind::Aggregate ? a.elems.size() : 1,
                      b.kind == ConstValue::Kind::Aggregate ? b.elems.size() : 1);
  std::vector<ConstValue> es;
  for (size_t k = 0; k < n; ++k) {
    const ConstValue &x = a.kind == ConstValue::Kind::Aggregate ? a.elems[k] : a;
    const ConstValue &y = b.kind == ConstValue::Kind::Aggregate ? b.elems[k] : b;
    auto r = foldScalar(op, x, y, e, error, warning);
    if (!r)
      return std::nullopt;
    es.push_back(*r);
  }
  return ConstValue::makeAggregate(std::move(es), resultType);
}

std::optional<ConstValue> sema::foldUnary(ast::UnaryOp op, const ConstValue &a,
                                          const Type *resultType,
                                          TypeContext &ctx,
                                          std::string *warning) {
  if (a.kind == ConstValue::Kind::Aggregate) {
    auto *e = elementType(resultType);
    if (!e)
      return std::nullopt;
    std::vector<ConstValue> es;
    for (auto &x : a.elems) {
      auto r = foldUnary(op, x, e, ctx);
      if (!r)
        return std::nullopt;
      es.push_back(*r);
    }
    return ConstValue::makeAggregate(std::move(es), resultType);
  }
  auto *s = dynamic_cast<const ScalarType *>(resultType);
  if (!s)
    return std::nullopt;
  switch (op) {
  case ast::UnaryOp::Plus:
    return convertScalar(a, s, /*keepExact=*/true);
  case ast::UnaryOp::Neg:
    if (s->isFloat())
      return foldsExactly(a) ? makeExactFloat(-a.asDouble(), s)
                             : ConstValue::makeFloat(-a.asDouble(), s);
    if (warning && s->isSigned && overflows(-__int128(a.asInt()), s))
      *warning = "integer overflow in a constant expression: the result " +
                 int128Text(-__int128(a.asInt())) + " does not fit in '" +
                 s->str() + "' and wraps to " +
                 std::to_string(wrapInt(int64_t(0 - uint64_t(a.asInt())), s));
    return ConstValue::makeInt(wrapInt(int64_t(0 - uint64_t(a.asInt())), s), s);
  case ast::UnaryOp::BitNot:
    if (s->isBool())
      return ConstValue::makeBool(!a.b, s);
    return ConstValue::makeInt(wrapInt(~a.asInt(), s), s);
  case ast::UnaryOp::Not:
    return ConstValue::makeBool(a.asDouble() == 0, s);
  }
  return std::nullopt;
}

std::string sema::conversionWarning(const ConstValue &v, const Type *to) {
  if (v.kind == ConstValue::Kind::Aggregate) {
    const Type *el = elementType(to);
    for (const ConstValue &e : v.elems) {
      std::string w = conversionWarning(e, el ? el : to);
      if (!w.empty())
        return w;
    }
    return "";
  }
  auto *s = dynamic_cast<const ScalarType *>(to);
  if (!s || !s->isInt() || v.kind != ConstValue::Kind::Float)
    return "";
  double d = std::trunc(v.f);
  double lo = s->isSigned ? -std::ldexp(1.0, int(s->bits) - 1) : 0.0;
  double hi = std::ldexp(1.0, int(s->bits) - (s->isSigned ? 1 : 0));
  if (!std::isnan(d) && d >= lo && d < hi)
    return "";
  ConstValue r = convertScalar(v, s);
  std::string result = !s->isSigned && s->bits == 64
                           ? std::to_string(uint64_t(r.i))
                           : std::to_string(r.i);
  if (std::isnan(v.f))
    return "converting NaN to '" + s->str() +
           "' gives 0 (float to integer conversions saturate; NaN gives 0)";
  // The shortest spelling that reads back as the value.
  char text[40];
  if (std::fabs(v.f) < 1e15 && v.f == std::trunc(v.f))
    std::snprintf(text, sizeof text, "%.0f", v.f);
  else
    for (int p = 1; p <= 17; ++p) {
      std::snprintf(text, sizeof text, "%.*g", p, v.f);
      if (std::strtod(text, nullptr) == v.f)
        break;
    }
  return "the conversion of " + std::string(text) + " to '" + s->str() +
         "' is out of range: it gives " + result +
         " (float to integer conversions saturate)";
}

bool sema::foldCompare(ast::CmpOp op, const ConstValue &a, const ConstValue &b) {
  bool useFloat = a.kind == ConstValue::Kind::Float || b.kind == ConstValue::Kind::Float;
  int c;
  if (useFloat) {
    double x = a.asDouble(), y = b.asDouble();
    if (std::isnan(x) || std::isnan(y))
      return op == ast::CmpOp::Ne;
    c = x < y ? -1 : x > y ? 1 : 0;
  } else {
    auto *s = dynamic_cast<const ScalarType *>(a.type);
    bool uns = s && !s->isSigned && s->bits == 64;
    if (uns) {
      uint64_t x = a.i, y = b.i;
      c = x < y ? -1 : x > y ? 1 : 0;
    } else {
      int64_t x = a.asInt(), y = b.asInt();
      c = x < y ? -1 : x > y ? 1 : 0;
    }
  }
  switch (op) {
  case ast::CmpOp::Eq: return c == 0;
  case ast::CmpOp::Ne: return c != 0;
  case ast::CmpOp::Lt: return c < 0;
  case ast::CmpOp::Le: return c <= 0;
  case ast::CmpOp::Gt: return c > 0;
  case ast::CmpOp::Ge: return c >= 0;
  }
  return false;
}

std::optional<ConstValue> sema::parseDefineValue(const std::string &text,
                                                 TypeContext &ctx,
                                                 const ScalarType *defaultFloat) {
  if (text == "true")
    return ConstValue::makeBool(true, ctx.getBool());
  if (text == "false")
    return ConstValue::makeBool(false, ctx.getBool());
  if (text.empty())
    return std::nullopt;
  std::string t;
  for (char c : text)
    if (c != '_')
      t += c;
  size_t pos = 0;
  bool neg = false;
  if (t[0] == '-' || t[0] == '+') {
    neg = t[0] == '-';
    pos = 1;
  }
  std::string body = t.substr(pos);
  if (body.empty())
    return std::nullopt;
  int base = 10;
  std::string digits = body;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    base = 16;
    digits = body.substr(2);
  } else if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B')) {
    base = 2;
    digits = body.substr(2);
  }
  bool allDigits = !digits.empty();
  for (char c : digits) {
    bool ok = base == 16 ? std::isxdigit((unsigned char)c)
                         : base == 2 ? (c == '0' || c == '1')
                                     : std::isdigit((unsigned char)c);
    allDigits &= ok;
  }
  if (allDigits) {
    errno = 0;
    char *end = nullptr;
    unsigned long long u = std::strtoull(digits.c_str(), &end, base);
    if (errno || *end)
      return std::nullopt;
    if (neg) {
      if (u > (1ull << 63))
        return std::nullopt;
      int64_t v = int64_t(0 - u);
      if (v >= INT32_MIN)
        return ConstValue::makeInt(v, ctx.i32());
      return ConstValue::makeInt(v, ctx.getInt(64, true));
    }
    if (u <= uint64_t(INT32_MAX))
      return ConstValue::makeInt(int64_t(u), ctx.i32());
    if (u <= uint64_t(INT64_MAX))
      return ConstValue::makeInt(int64_t(u), ctx.getInt(64, true));
    return ConstValue::makeInt(int64_t(u), ctx.getInt(64, false));
  }
  // Float.
  std::string f = body;
  const ScalarType *ft = defaultFloat;
  bool suffixed = !f.empty() && (f.back() == 'f' || f.back() == 'F');
  if (suffixed) {
    f.pop_back();
    ft = ctx.f32();
  }
  if (f.empty() || f.find_first_not_of("0123456789.eE+-") != std::string::npos ||
      f.find_first_of("0123456789") == std::string::npos)
    return std::nullopt;
  char *end = nullptr;
  double d = std::strtod(f.c_str(), &end);
  if (*end)
    return std::nullopt;
  if (suffixed) // `1.5f` is an f32 value; others stay exact
    return ConstValue::makeFloat(roundFloat(neg ? -d : d, ft), ft);
  return makeExactFloat(neg ? -d : d, ft);
}
