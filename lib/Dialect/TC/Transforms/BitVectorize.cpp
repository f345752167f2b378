//===- BitVectorize.cpp - tic-bit-vectorize -------------------------------===//
//
// QuanTaichi's bit-array vectorization (docs/quant.md): in a kernel marked
// `tc.bit_vectorize = W` (`bit_vectorize(W);`, W = 8, 16, 32 or 64; 32 in
// the examples below), a struct-for over a 1-bit field in a W-lane
// bit_array of W-bit words becomes a parallel loop over its words (on a
// sparse path, a struct-for over the bit_array's parent, whose cells are the
// words). Each iteration computes the 32 lanes of its word at once:
//
//  * a 1-bit load `x[i + a, j + c]` (j the vectorized index) is the word of
//    lanes j + c: one word load when c is a multiple of 32, else two
//    neighbouring words shifted and or-ed (their indices clamped to the
//    field, which only matters where the scalar access would be out of
//    range);
//  * integers are bit-sliced: a value of at most 2^n - 1 is n words, word k
//    holding bit k of every lane; `+` is a ripple-carry adder, `==`, `!=`,
//    `<`... are bit-sliced comparisons, `& | ^`, casts and `select` work
//    word by word; constants are words of all ones or zeros;
//  * values that do not depend on the lane (the other indices, constants,
//    conditions on j that are the same for every lane of a word) stay
//    scalar, and so does control flow on them;
//  * a store `y[i, j] = v` of a 1-bit field at the loop's own element writes
//    bit 0 of every lane: one whole-word store (the iteration owns the
//    word; no compare-and-swap).
//
// Everything else in such a loop is an error naming the construct.
//
//===----------------------------------------------------------------------===//
#include "tic/Dialect/SNode/SNodeLayout.h"
#include "tic/Dialect/TC/Passes.h"
#include "tic/Dialect/TC/TCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace tic {
#define GEN_PASS_DEF_BITVECTORIZE
#include "tic/Dialect/TC/Passes.h.inc"
} // namespace tic

using namespace mlir;
using namespace tic;

namespace {

/// The word widths `bit_vectorize(W)` takes: W lanes of 1 bit per W-bit
/// word.
bool isLaneWidth(int64_t w) { return w == 8 || w == 16 || w == 32 || w == 64; }

/// What a value of the scalar loop is in the vectorized one.
struct Rep {
  enum Kind { Uniform, Lane, Vec } kind = Uniform;
  Value u;                   ///< Uniform: the value
  int64_t off = 0;           ///< Lane: the vectorized index plus `off`
  SmallVector<Value> planes; ///< Vec: bit k of every lane in planes[k]
  uint64_t hi = 0;           ///< Vec: the largest value of a lane
};

/// `a P b` as `b P' a`.
arith::CmpIPredicate swapped(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::slt:
    return P::sgt;
  case P::sgt:
    return P::slt;
  case P::sle:
    return P::sge;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ugt:
    return P::ult;
  case P::ule:
    return P::uge;
  case P::uge:
    return P::ule;
  default:
    return p;
  }
}

/// The place of a 1-bit field in a bit_array of `lanes` lanes in
/// `lanes`-bit words along `axis`.
bool isBitLaneField(const snode::PlaceLayout *p, int64_t axis, int64_t lanes) {
  if (!p || !p->isQuant() || !p->inBitArray || p->wordBits != lanes ||
      p->quant.size() != 1 || p->quant[0].getWidth() != 1)
    return false;
  const snode::NodeLayout *a = p->parent;
  return a->axes.size() == 1 && a->axes[0] == axis && a->shape[0] == lanes;
}

class Vectorizer {
public:
  Vectorizer(OpBuilder &b, const snode::SNodeLayout &layout, int64_t lanes,
             int64_t axis, int64_t words, Value w)
      : b(b), layout(layout), lanes(lanes), axis(axis), words(words), w(w),
        wordType(b.getIntegerType(unsigned(lanes))) {}

  DenseMap<Value, Rep> map;
  /// The random words made for random(u32) lanes.
  SmallVector<Operation *> randoms;

  /// Vectorizes the ops of `src` (a loop body or an scf.if region) at the
  /// builder's point; `yields` receives the mapped operands of its
  /// terminator.
  LogicalResult block(Block &src, SmallVectorImpl<Value> *yields) {
    for (Operation &op : src) {
      if (isa<tc::YieldOp, scf::YieldOp>(op)) {
        if (yields)
          for (Value v : op.getOperands()) {
            auto it = map.find(v);
            if (it == map.end() || it->second.kind != Rep::Uniform)
              return fail(&op, "a lane-dependent value leaving a branch");
            yields->push_back(it->second.u);
          }
        continue;
      }
      if (failed(one(op)))
        return failure();
    }
    return success();
  }

private:
  OpBuilder &b;
  const snode::SNodeLayout &layout;
  int64_t lanes, axis, words;
  Value w; ///< the word index (the vectorized axis' induction variable)
  Type wordType; ///< the words of lanes (and of bit planes): i<lanes>
  DenseMap<Value, Rep> vars; ///< memref locals: their current value

  LogicalResult fail(Operation *op, const Twine &what) {
    return op->emitError("bit_vectorize: ")
           << what << " is not supported in a vectorized loop (docs/quant.md)";
  }

  /// An index constant.
  Value i32c(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  /// A word constant.
  Value wordc(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, wordType, v);
  }
  Value ones(Location loc) { return wordc(loc, -1); }
  /// Lane 0's element index of word `wi` (a word index of the field, so
  /// 32 wi neither wraps nor changes sign: the flags let the word index
  /// the access computes from it fold back to `wi`).
  Value laneZero(Location loc, Value wi) {
    return arith::MulIOp::create(b, loc, wi, i32c(loc, lanes),
                                 arith::IntegerOverflowFlags::nsw |
                                     arith::IntegerOverflowFlags::nuw);
  }
  Value zeroW(Location loc) { return wordc(loc, 0); }

  /// A uniform integer constant as planes.
  std::optional<Rep> constVec(Value v, Location loc) {
    APInt c;
    if (!matchPattern(v, m_ConstantInt(&c)) ||
        (c.getBitWidth() > 1 && c.isNegative()))
      return std::nullopt;
    c = c.zext(64);
    Rep r;
    r.kind = Rep::Vec;
    r.hi = c.getZExtValue();
    for (unsigned k = 0; k < std::max(1u, c.getActiveBits()); ++k)
      r.planes.push_back(c[k] ? ones(loc) : zeroW(loc));
    return r;
  }

  /// `v` as a Vec (a uniform constant broadcast), or std::nullopt.
  std::optional<Rep> asVec(Value orig, Location loc) {
    const Rep &r = map[orig];
    if (r.kind == Rep::Vec)
      return r;
    if (r.kind == Rep::Uniform)
      return constVec(r.u, loc);
    return std::nullopt;
  }

  Value plane(const Rep &r, unsigned k) {
    return k < r.planes.size() ? r.planes[k] : Value();
  }
  /// Whether `v` is the constant word `c`.
  static bool isWord(Value v, int64_t c) {
    APInt x;
    return matchPattern(v, m_ConstantInt(&x)) && x.getSExtValue() == c;
  }
  // Word operations, folding constant operands (so that planes a constant
  // masks off are never computed: see `randoms`).
  Value andW(Location loc, Value a, Value c) {
    if (isWord(a, 0) || isWord(c, -1))
      return a;
    if (isWord(c, 0) || isWord(a, -1))
      return c;
    return arith::AndIOp::create(b, loc, a, c);
  }
  Value orW(Location loc, Value a, Value c) {
    if (isWord(a, 0) || isWord(c, -1))
      return c;
    if (isWord(c, 0) || isWord(a, -1))
      return a;
    return arith::OrIOp::create(b, loc, a, c);
  }
  Value xorW(Location loc, Value a, Value c) {
    if (isWord(c, 0))
      return a;
    if (isWord(a, 0))
      return c;
    return arith::XOrIOp::create(b, loc, a, c);
  }
  Value notW(Location loc, Value a) { return xorW(loc, a, ones(loc)); }
  Value orZero(Location loc, Value v) { return v ? v : zeroW(loc); }

  /// A word of random bits (one random(u32) per 32 bits); its ops are
  /// recorded in `randoms`, users first, to be dropped if no plane uses it.
  Value randomWord(Location loc) {
    auto r0 = tc::RandomOp::create(b, loc, b.getI32Type());
    if (lanes == 32) {
      randoms.push_back(r0);
      return r0;
    }
    if (lanes < 32) {
      auto t = arith::TruncIOp::create(b, loc, wordType, r0);
      randoms.append({t, r0});
      return t;
    }
    auto r1 = tc::RandomOp::create(b, loc, b.getI32Type());
    auto lo = arith::ExtUIOp::create(b, loc, wordType, r0);
    auto hi = arith::ExtUIOp::create(b, loc, wordType, r1);
    auto hs = arith::ShLIOp::create(b, loc, hi, wordc(loc, 32));
    auto word = arith::OrIOp::create(b, loc, lo, hs);
    randoms.append({word, hs, hi, lo, r1, r0});
    return word;
  }

  static unsigned bitsFor(uint64_t hi) {
    return std::max(1u, unsigned(llvm::Log2_64(hi) + 1));
  }

  Rep add(Location loc, const Rep &x, const Rep &y) {
    Rep r;
    r.kind = Rep::Vec;
    r.hi = std::min<uint64_t>(x.hi + y.hi, 0xffffffffu);
    return ripple(loc, x, y, bitsFor(r.hi), Value(), false, r);
  }

  /// x - y in `bits`-bit lanes (wrapping, as the scalar program's u32 or
  /// i32 arithmetic): x + not(y) + 1 over all `bits` planes.
  Rep sub(Location loc, const Rep &x, const Rep &y, unsigned bits) {
    Rep r;
    r.kind = Rep::Vec;
    r.hi = bits >= 32 ? 0xffffffffu : (uint64_t(1) << bits) - 1;
    return ripple(loc, x, y, bits, ones(loc), true, r);
  }

  /// A ripple-carry adder of x and y (inverted when `invertY`) with carry
  /// in `carry` (or none) over `n` planes, into `r`.
  Rep ripple(Location loc, const Rep &x, const Rep &y, unsigned n, Value carry,
             bool invertY, Rep r) {
    for (unsigned k = 0; k < n; ++k) {
      Value a = orZero(loc, plane(x, k)), c = orZero(loc, plane(y, k));
      if (invertY)
        c = notW(loc, c);
      Value s = xorW(loc, a, c);
      Value sum = carry ? xorW(loc, s, carry) : s;
      Value gen = andW(loc, a, c);
      carry = carry ? orW(loc, gen, andW(loc, carry, s)) : gen;
      r.planes.push_back(sum);
    }
    return r;
  }

  /// One plane: all ones in the lanes where `x == y`.
  Value equal(Location loc, const Rep &x, const Rep &y) {
    unsigned n = std::max(x.planes.size(), y.planes.size());
    Value eq;
    for (unsigned k = 0; k < n; ++k) {
      Value xk = orZero(loc, plane(x, k)), yk = orZero(loc, plane(y, k));
      Value same = notW(loc, xorW(loc, xk, yk));
      eq = eq ? andW(loc, eq, same) : same;
    }
    return eq;
  }

  /// One plane: the lanes where `x < y` (unsigned; lanes are never
  /// negative here).
  Value less(Location loc, const Rep &x, const Rep &y) {
    unsigned n = std::max(x.planes.size(), y.planes.size());
    Value lt = zeroW(loc);
    for (unsigned k = 0; k < n; ++k) {
      Value a = orZero(loc, plane(x, k)), c = orZero(loc, plane(y, k));
      Value below = andW(loc, notW(loc, a), c);
      Value equalBelow = andW(loc, notW(loc, xorW(loc, a, c)), lt);
      lt = orW(loc, below, equalBelow);
    }
    return lt;
  }

  Rep bit(Value p) {
    Rep r;
    r.kind = Rep::Vec;
    r.planes = {p};
    r.hi = 1;
    return r;
  }

  /// The word holding lanes j + off of a 1-bit field at `idx` (the
  /// vectorized position replaced).
  Value laneWord(Location loc, tc::LoadOp ld, SmallVector<Value> idx,
                 unsigned pos, int64_t off) {
    int64_t q = llvm::divideFloorSigned(off, lanes), r = off - q * lanes;
    auto wordAt = [&](int64_t dq) -> Value {
      // Clamped to the field's words; lane 0's element index.
      Value wi = arith::AddIOp::create(b, loc, w, i32c(loc, q + dq));
      wi = arith::MaxSIOp::create(b, loc, wi, i32c(loc, 0));
      wi = arith::MinSIOp::create(b, loc, wi, i32c(loc, words - 1));
      idx[pos] = laneZero(loc, wi);
      auto l = tc::LoadOp::create(b, loc, wordType, ld.getFieldAttr(), idx,
                                  ld.getCompAttr());
      l->setAttr(tc::kWholeWordAttrName, b.getUnitAttr());
      return l;
    };
    Value lo = wordAt(0);
    if (r == 0)
      return lo;
    Value hi = wordAt(1);
    Value loPart = arith::ShRUIOp::create(b, loc, lo, wordc(loc, r));
    Value hiPart = arith::ShLIOp::create(b, loc, hi, wordc(loc, lanes - r));
    return orW(loc, loPart, hiPart);
  }

  /// Indices mapped: uniform ones as they are; the vectorized one (at
  /// most one position) reported through `pos` / `off`.
  LogicalResult indices(Operation *op, ValueRange in, SmallVector<Value> &out,
                        int &pos, int64_t &off) {
    pos = -1;
    for (auto [k, v] : llvm::enumerate(in)) {
      const Rep &r = map[v];
      if (r.kind == Rep::Uniform) {
        out.push_back(r.u);
      } else if (r.kind == Rep::Lane && pos < 0) {
        out.push_back(Value());
        pos = int(k);
        off = r.off;
      } else {
        return fail(op, "an index computed from lane values");
      }
    }
    return success();
  }

  /// The variables a uniform scf.if `n` assigned in its branches (`after`,
  /// from `before`): each one's words become extra results of the if (a
  /// new if with the same regions), and the variable takes them.
  LogicalResult mergeVars(scf::IfOp &n, const DenseMap<Value, Rep> &before,
                          DenseMap<Value, Rep> (&after)[2], Value zero) {
    auto same = [](const Rep &x, const Rep &y) {
      return x.kind == y.kind && x.u == y.u && x.planes == y.planes;
    };
    SmallVector<Value> changed;
    for (auto *m : {&after[0], &after[1]})
      for (auto &[var, rep] : *m) {
        auto it = before.find(var);
        if ((it == before.end() || !same(it->second, rep)) &&
            !llvm::is_contained(changed, var))
          changed.push_back(var);
      }
    if (changed.empty())
      return success();
    SmallVector<Type> types(n.getResultTypes());
    SmallVector<Value> extra[2];
    SmallVector<std::pair<Value, Rep>> merged;
    for (Value var : changed) {
      Rep r[2];
      for (int k = 0; k < 2; ++k) {
        auto it = after[k].find(var);
        if (it == after[k].end()) {
          auto bt = before.find(var);
          if (bt == before.end())
            return fail(n, "a variable declared in only one branch and used "
                           "after it");
          r[k] = bt->second;
        } else {
          r[k] = it->second;
        }
      }
      Rep out;
      if (r[0].kind == Rep::Uniform && r[1].kind == Rep::Uniform) {
        types.push_back(r[0].u.getType());
        extra[0].push_back(r[0].u);
        extra[1].push_back(r[1].u);
        out.u = Value(); // set from the results below
      } else {
        if (r[0].kind == Rep::Lane || r[1].kind == Rep::Lane ||
            r[0].kind != r[1].kind)
          return fail(n, "a variable that is lane-independent in one branch "
                         "and not in the other");
        out.kind = Rep::Vec;
        out.hi = std::max(r[0].hi, r[1].hi);
        size_t np = std::max(r[0].planes.size(), r[1].planes.size());
        for (size_t p = 0; p < np; ++p) {
          types.push_back(wordType);
          for (int k = 0; k < 2; ++k)
            extra[k].push_back(p < r[k].planes.size() ? r[k].planes[p] : zero);
        }
        out.planes.resize(np);
      }
      merged.push_back({var, out});
    }
    // The same if with the extra results.
    auto m = scf::IfOp::create(b, n.getLoc(), types, n.getCondition(),
                               /*withElseRegion=*/true);
    for (int k = 0; k < 2; ++k) {
      Region &from = k ? n.getElseRegion() : n.getThenRegion();
      Region &to = k ? m.getElseRegion() : m.getThenRegion();
      if (from.empty()) { // no else: one that yields the values before
        OpBuilder::InsertionGuard g(b);
        to.dropAllReferences();
        to.getBlocks().clear();
        b.createBlock(&to);
        scf::YieldOp::create(b, n.getLoc(), extra[k]);
        continue;
      }
      to.takeBody(from);
      auto y = cast<scf::YieldOp>(to.front().getTerminator());
      SmallVector<Value> ops(y.getOperands());
      ops.append(extra[k]);
      y->setOperands(ops);
    }
    unsigned base = n.getNumResults();
    n.replaceAllUsesWith(m.getResults().take_front(base));
    for (auto &[o, rep] : map)
      if (rep.kind == Rep::Uniform && rep.u && rep.u.getDefiningOp() == n)
        rep.u = m.getResult(cast<OpResult>(rep.u).getResultNumber());
    n.erase();
    n = m;
    unsigned at = base;
    for (auto &[var, rep] : merged) {
      if (rep.kind == Rep::Uniform)
        rep.u = m.getResult(at++);
      else
        for (Value &p : rep.planes)
          p = m.getResult(at++);
      vars[var] = rep;
    }
    return success();
  }

  /// A load or store of `field` at `in`: the field must be a 1-bit lane
  /// field along the vectorized axis, indexed there by j + `off`.
  LogicalResult laneAccess(Operation *op, StringRef field, ValueRange in,
                           SmallVector<Value> &idx, int64_t &off) {
    if (!isBitLaneField(layout.lookupPlace(field), axis, lanes))
      return fail(op, (isa<tc::LoadOp>(op) ? "a load of '" : "a store to '") +
                          field + "' (only 1-bit fields in " + Twine(lanes) +
                          "-lane bit_arrays along the vectorized axis)");
    int pos;
    if (failed(indices(op, in, idx, pos, off)))
      return failure();
    if (pos != int(axis))
      return fail(op, "an access not indexed by the vectorized index");
    return success();
  }

  LogicalResult one(Operation &op) {
    Location loc = op.getLoc();
    auto kindOf = [&](Value v) { return map[v].kind; };
    // Values from outside the loop are uniform.
    for (Value v : op.getOperands())
      if (!map.count(v)) {
        Rep r;
        r.u = v;
        map[v] = r;
      }
    bool allUniform = llvm::all_of(
        op.getOperands(), [&](Value v) { return map[v].kind == Rep::Uniform; });

    // Index arithmetic on the vectorized index: j + c, c + j, j - c.
    if (isa<arith::AddIOp, arith::SubIOp>(op)) {
      Value l = op.getOperand(0), r = op.getOperand(1);
      APInt c;
      if (kindOf(l) == Rep::Lane && kindOf(r) == Rep::Uniform &&
          matchPattern(map[r].u, m_ConstantInt(&c))) {
        Rep x = map[l];
        x.off += isa<arith::SubIOp>(op) ? -c.getSExtValue() : c.getSExtValue();
        map[op.getResult(0)] = x;
        return success();
      }
      if (isa<arith::AddIOp>(op) && kindOf(r) == Rep::Lane &&
          kindOf(l) == Rep::Uniform &&
          matchPattern(map[l].u, m_ConstantInt(&c))) {
        Rep x = map[r];
        x.off += c.getSExtValue();
        map[op.getResult(0)] = x;
        return success();
      }
    }
    // A condition on the vectorized index that every lane of a word agrees
    // on: j + c against a constant K on a multiple of 32.
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      Value l = cmp.getLhs(), r = cmp.getRhs();
      APInt k;
      if (kindOf(l) == Rep::Lane || kindOf(r) == Rep::Lane) {
        bool laneLeft = kindOf(l) == Rep::Lane;
        Value other = laneLeft ? r : l;
        if (kindOf(other) != Rep::Uniform ||
            !matchPattern(map[other].u, m_ConstantInt(&k)))
          return fail(&op, "a comparison of the vectorized index with a "
                           "non-constant");
        arith::CmpIPredicate p =
            laneLeft ? cmp.getPredicate() : swapped(cmp.getPredicate());
        int64_t K = k.getSExtValue(), off = map[laneLeft ? l : r].off;
        // j + off P K as j + off >= T or < T (or ==).
        int64_t T;
        bool geq;
        switch (p) {
        case arith::CmpIPredicate::sge:
        case arith::CmpIPredicate::uge:
          T = K, geq = true;
          break;
        case arith::CmpIPredicate::sgt:
        case arith::CmpIPredicate::ugt:
          T = K + 1, geq = true;
          break;
        case arith::CmpIPredicate::slt:
        case arith::CmpIPredicate::ult:
          T = K, geq = false;
          break;
        case arith::CmpIPredicate::sle:
        case arith::CmpIPredicate::ule:
          T = K + 1, geq = false;
          break;
        default:
          return fail(&op, "'==' or '!=' on the vectorized index");
        }
        if (llvm::mod(T - off, lanes) != 0)
          return fail(&op, "a condition on the vectorized index that "
                           "differs between the lanes of a word");
        // Lane 0 decides: 32 w + off against T, that is w against
        // (T - off) / 32 (exact), a test on the word index that
        // tic-split-index-set can turn into the loop's bounds.
        Rep res;
        res.u = arith::CmpIOp::create(
            b, loc, geq ? arith::CmpIPredicate::sge : arith::CmpIPredicate::slt,
            w, i32c(loc, llvm::divideFloorSigned(T - off, lanes)));
        map[op.getResult(0)] = res;
        return success();
      }
    }

    // Lane-independent computations stay scalar.
    if (allUniform && op.getNumRegions() == 0 && isMemoryEffectFree(&op)) {
      IRMapping m;
      for (Value v : op.getOperands())
        m.map(v, map[v].u);
      Operation *c = b.clone(op, m);
      for (auto [o, n] : llvm::zip(op.getResults(), c->getResults())) {
        Rep r;
        r.u = n;
        map[o] = r;
      }
      return success();
    }

    if (auto ld = dyn_cast<tc::LoadOp>(op)) {
      SmallVector<Value> idx;
      int64_t off = 0;
      if (failed(laneAccess(&op, ld.getField(), ld.getIndices(), idx, off)))
        return failure();
      map[ld.getResult()] = bit(laneWord(loc, ld, idx, unsigned(axis), off));
      return success();
    }
    if (auto st = dyn_cast<tc::StoreOp>(op)) {
      SmallVector<Value> idx;
      int64_t off = 0;
      if (failed(laneAccess(&op, st.getField(), st.getIndices(), idx, off)))
        return failure();
      if (off != 0)
        return fail(&op, "a store to another element than the loop's own");
      std::optional<Rep> v = asVec(st.getValue(), loc);
      if (!v)
        return fail(&op, "storing the vectorized index");
      idx[axis] = laneZero(loc, w);
      auto s = tc::StoreOp::create(b, loc, v->planes[0], st.getFieldAttr(), idx,
                                   st.getCompAttr());
      s->setAttr(tc::kWholeWordAttrName, b.getUnitAttr());
      return success();
    }
    if (isa<arith::AddIOp, arith::SubIOp, arith::AndIOp, arith::OrIOp,
            arith::XOrIOp, arith::CmpIOp>(op)) {
      std::optional<Rep> x = asVec(op.getOperand(0), loc),
                         y = asVec(op.getOperand(1), loc);
      if (!x || !y)
        return fail(&op, "'" + op.getName().getStringRef() +
                             "' on a non-constant lane-independent value");
      Rep r;
      r.kind = Rep::Vec;
      if (isa<arith::AddIOp>(op)) {
        r = add(loc, *x, *y);
      } else if (isa<arith::SubIOp>(op)) {
        r = sub(loc, *x, *y, op.getResult(0).getType().getIntOrFloatBitWidth());
      } else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
        using P = arith::CmpIPredicate;
        // A signed comparison of lanes that may be negative (a
        // difference's): unsigned on the values with the sign bit flipped.
        unsigned bits = cmp.getLhs().getType().getIntOrFloatBitWidth();
        bool isSigned =
            cmp.getPredicate() == P::slt || cmp.getPredicate() == P::sle ||
            cmp.getPredicate() == P::sgt || cmp.getPredicate() == P::sge;
        if (isSigned && bits > 1 &&
            (x->planes.size() >= bits || y->planes.size() >= bits)) {
          for (Rep *v : {&*x, &*y}) {
            while (v->planes.size() < bits)
              v->planes.push_back(zeroW(loc));
            v->planes[bits - 1] = notW(loc, v->planes[bits - 1]);
          }
        }
        Value m;
        switch (cmp.getPredicate()) {
        case P::eq:
          m = equal(loc, *x, *y);
          break;
        case P::ne:
          m = notW(loc, equal(loc, *x, *y));
          break;
        case P::slt:
        case P::ult:
          m = less(loc, *x, *y);
          break;
        case P::sgt:
        case P::ugt:
          m = less(loc, *y, *x);
          break;
        case P::sle:
        case P::ule:
          m = notW(loc, less(loc, *y, *x));
          break;
        case P::sge:
        case P::uge:
          m = notW(loc, less(loc, *x, *y));
          break;
        }
        r = bit(m);
      } else {
        unsigned n = std::max(x->planes.size(), y->planes.size());
        for (unsigned k = 0; k < n; ++k) {
          Value a = orZero(loc, plane(*x, k)), c = orZero(loc, plane(*y, k));
          r.planes.push_back(isa<arith::AndIOp>(op)  ? andW(loc, a, c)
                             : isa<arith::OrIOp>(op) ? orW(loc, a, c)
                                                     : xorW(loc, a, c));
        }
        r.hi = isa<arith::AndIOp>(op) ? std::min(x->hi, y->hi)
                                      : (uint64_t(1) << n) - 1;
        // i1 `xor true` is a not: one plane.
        if (op.getResult(0).getType().isInteger(1) && r.planes.size() > 1)
          r.planes.resize(1);
      }
      map[op.getResult(0)] = r;
      return success();
    }
    if (isa<arith::ExtUIOp, arith::ExtSIOp, arith::TruncIOp>(op)) {
      std::optional<Rep> x = asVec(op.getOperand(0), loc);
      if (!x)
        return fail(&op, "a cast of the vectorized index");
      unsigned bits = op.getResult(0).getType().getIntOrFloatBitWidth();
      if (x->planes.size() > bits)
        x->planes.resize(bits), x->hi = (uint64_t(1) << bits) - 1;
      map[op.getResult(0)] = *x;
      return success();
    }
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      std::optional<Rep> c = asVec(sel.getCondition(), loc),
                         x = asVec(sel.getTrueValue(), loc),
                         y = asVec(sel.getFalseValue(), loc);
      if (!c || !x || !y)
        return fail(&op, "a select of the vectorized index");
      Rep r;
      r.kind = Rep::Vec;
      r.hi = std::max(x->hi, y->hi);
      unsigned n = std::max(x->planes.size(), y->planes.size());
      for (unsigned k = 0; k < n; ++k) {
        Value xk = andW(loc, c->planes[0], orZero(loc, plane(*x, k)));
        Value notC = notW(loc, c->planes[0]);
        Value yk = andW(loc, notC, orZero(loc, plane(*y, k)));
        r.planes.push_back(orW(loc, xk, yk));
      }
      map[sel.getResult()] = r;
      return success();
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      const Rep &c = map[ifOp.getCondition()];
      if (c.kind != Rep::Uniform)
        return fail(&op, "a branch on lane values (write it with select or "
                         "bitwise operators)");
      // An else only where the source has one (an if without else or
      // results is what tic-split-index-set turns into loop bounds).
      bool hasElse = !ifOp.getElseRegion().empty();
      Value zero = zeroW(loc); // before the if: nothing may follow it
      auto n = scf::IfOp::create(b, loc, ifOp.getResultTypes(), c.u, hasElse);
      // Each branch starts from the variables as they are; what they assign
      // leaves the if as extra results (merged below).
      DenseMap<Value, Rep> before = vars, after[2];
      int side = 0;
      for (auto [src, dst] :
           {std::pair(&ifOp.getThenRegion(), &n.getThenRegion()),
            std::pair(&ifOp.getElseRegion(), &n.getElseRegion())}) {
        if (dst->empty()) { // no else: the variables stay as they were
          after[side++] = before;
          continue;
        }
        Block *db = &dst->front();
        if (!db->empty())
          db->back().erase();
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPointToEnd(db);
        SmallVector<Value> ys;
        vars = before;
        if (!src->empty() && failed(block(src->front(), &ys)))
          return failure();
        scf::YieldOp::create(b, loc, ys);
        after[side++] = vars;
      }
      vars = before;
      for (auto [o, nr] : llvm::zip(ifOp.getResults(), n.getResults())) {
        Rep r;
        r.u = nr;
        map[o] = r;
      }
      return mergeVars(n, before, after, zero);
    }
    if (auto rnd = dyn_cast<tc::RandomOp>(op)) {
      // 32 random bits per lane: 32 random words. Those no result needs
      // (`random(u32) & 3` keeps two) are dropped at the end: the lanes'
      // bits are as random either way.
      if (!rnd.getType().isInteger(32))
        return fail(&op, "a random float (use random(u32) and integer "
                         "operations)");
      Rep r;
      r.kind = Rep::Vec;
      r.hi = 0xffffffffu;
      for (int k = 0; k < 32; ++k) {
        r.planes.push_back(randomWord(loc));
      }
      map[rnd.getResult()] = r;
      return success();
    }
    if (auto al = dyn_cast<memref::AllocaOp>(op)) {
      if (al.getType().getRank() != 0)
        return fail(&op, "a local array");
      map[al.getResult()] = Rep(); // a placeholder: `vars` holds its value
      return success();
    }
    if (auto st = dyn_cast<memref::StoreOp>(op)) {
      if (!st.getMemRef().getDefiningOp<memref::AllocaOp>())
        return fail(&op, "a store to memory other than a local variable");
      vars[st.getMemRef()] = map[st.getValue()];
      return success();
    }
    if (auto ld = dyn_cast<memref::LoadOp>(op)) {
      auto it = vars.find(ld.getMemRef());
      if (it == vars.end())
        return fail(&op, "reading a variable declared outside the loop");
      map[ld.getResult()] = it->second;
      return success();
    }
    return fail(&op, "'" + op.getName().getStringRef() + "'");
  }
};

struct BitVectorizePass : tic::impl::BitVectorizeBase<BitVectorizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    snode::SNodeLayout layout(module);
    if (failed(layout.checkAllocated()))
      return signalPassFailure();
    bool failedAny = false;
    module.walk([&](tc::KernelOp kernel) {
      auto width = kernel->getAttrOfType<IntegerAttr>("tc.bit_vectorize");
      if (!width)
        return;
      int64_t lanes = width.getInt();
      if (!isLaneWidth(lanes)) {
        kernel.emitError("bit_vectorize(")
            << lanes << "): the word width must be 8, 16, 32 or 64";
        failedAny = true;
        return;
      }
      SmallVector<tc::StructForOp> loops;
      kernel.walk([&](tc::StructForOp sf) { loops.push_back(sf); });
      if (loops.empty()) {
        kernel.emitError("bit_vectorize(")
            << lanes << ") needs a loop over a 1-bit bit_array field "
            << "(`for i, j in x`)";
        failedAny = true;
      }
      for (tc::StructForOp sf : loops)
        if (failed(vectorize(sf, layout, lanes)))
          failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult vectorize(tc::StructForOp sf, const snode::SNodeLayout &layout,
                          int64_t lanes) {
    std::string what = ("bit_vectorize(" + Twine(lanes) + ")").str();
    const snode::PlaceLayout *p = layout.lookupPlace(sf.getTarget());
    if (!p || !p->isQuant() || !p->inBitArray)
      return sf.emitError(what)
             << ": the loop must be over a 1-bit field in a bit_array (this "
                "one is over '"
             << sf.getTarget() << "')";
    int64_t axis = p->parent->axes[0];
    if (p->quant.size() == 1 && p->quant[0].getWidth() != 1)
      return sf.emitError(what)
             << " over " << p->quant[0].getWidth()
             << "-bit lanes is not supported yet (only 1-bit fields: '"
             << sf.getTarget() << "')";
    if (!isBitLaneField(p, axis, lanes))
      return sf.emitError(what)
             << ": '" << sf.getTarget()
             << "' must be a 1-bit field in a bit_array of " << lanes
             << " lanes in " << lanes << "-bit words";
    bool sparse = llvm::any_of(p->levels, [](const snode::LevelAccess &lv) {
      return !snode::isAlwaysActive(lv.node->kind);
    });
    if (p->shape[axis] % lanes != 0)
      return sf.emitError(what)
             << ": the extent of the vectorized axis must be a multiple of "
             << lanes;
    OpBuilder b(sf);
    Location loc = sf.getLoc();
    int64_t words = p->shape[axis] / lanes;
    Operation *loop;
    Block *body;
    if (sparse) {
      // One iteration per word: a struct-for over the bit_array's parent,
      // whose cells are the words (tic-lower-struct-for visits the active
      // ones; reads of inactive words give 0, stores activate).
      const snode::NodeLayout *words_ = p->parent->parent;
      if (!words_ || words_->cellIndexShape.size() != p->shape.size() ||
          words_->cellIndexShape[axis] != words)
        return sf.emitError(what)
               << " over this sparse layout is not supported yet (the "
                  "bit_array needs a parent whose cells are its words)";
      auto w = tc::StructForOp::create(b, loc, words_->name, false, nullptr,
                                       nullptr, nullptr, nullptr);
      body = new Block();
      w.getBody().push_back(body);
      for (size_t k = 0; k < p->shape.size(); ++k)
        body->addArgument(b.getI32Type(), loc);
      loop = w;
    } else {
      SmallVector<Value> lbs, ubs;
      for (auto [a, e] : llvm::enumerate(p->shape)) {
        lbs.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
        ubs.push_back(arith::ConstantIntOp::create(
            b, loc, b.getI32Type(), int64_t(a) == axis ? words : e));
      }
      auto pf = tc::ParallelForOp::create(b, loc, lbs, ubs);
      body = &pf.getBody().front();
      loop = pf;
    }
    OpBuilder ib = OpBuilder::atBlockEnd(body);
    Vectorizer v(ib, layout, lanes, axis, words,
                 body->getArgument(unsigned(axis)));
    for (auto [k, iv] : llvm::enumerate(sf.getInductionVars())) {
      Rep r;
      if (int64_t(k) == axis) {
        r.kind = Rep::Lane;
      } else {
        r.u = body->getArgument(unsigned(k));
      }
      v.map[iv] = r;
    }
    if (failed(v.block(sf.getBody().front(), nullptr))) {
      loop->erase();
      return failure();
    }
    tc::YieldOp::create(ib, loc);
    sf.erase();
    // Random words no plane ended up using.
    for (Operation *r : v.randoms)
      if (r->use_empty())
        r->erase();
    return success();
  }
};

} // namespace
