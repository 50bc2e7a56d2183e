// The flow's table of container contents: interning, and the join of two containers.
#include "flow/Containers.h"

#include <llvm/ADT/Hashing.h>
#include <llvm/ADT/StringRef.h>

#include <algorithm>
#include <optional>

namespace torchlint::flow {

namespace {
thread_local ContainerTable *Active = nullptr;

llvm::hash_code hashValue(const Value &V) {
  return llvm::hash_combine(static_cast<uint8_t>(V.Kind), static_cast<uint8_t>(V.Type), static_cast<uint8_t>(V.R),
                            static_cast<uint8_t>(V.DevHow), static_cast<uint8_t>(V.TypeHow), V.Flags,
                            static_cast<uint8_t>(V.Dev.Kind), V.Dev.Index, llvm::hash_value(llvm::StringRef(V.Dev.Name)),
                            V.DevAt.Index, V.TypeAt.Index, V.Loader.Index, V.Factory.Index, V.Parts, V.Body.Index);
}

bool unknown(const Value &V) { return V == Value(); }
} // namespace

ContainerTable::ContainerTable() { Table.emplace_back(); } // index 0: not known

uint32_t ContainerTable::intern(Contents C) {
  llvm::hash_code H = llvm::hash_value(C.AnyKey);
  for (const Value &V : C.Elems)
    H = llvm::hash_combine(H, hashValue(V));
  for (std::string_view K : C.Keys)
    H = llvm::hash_combine(H, llvm::hash_value(llvm::StringRef(K)));
  std::vector<uint32_t> &Bucket = ByHash[static_cast<uint64_t>(H)];
  for (uint32_t I : Bucket)
    if (Table[I] == C)
      return I;
  auto Index = static_cast<uint32_t>(Table.size());
  Table.push_back(std::move(C));
  Bucket.push_back(Index);
  return Index;
}

uint32_t ContainerTable::join(ValueKind K, uint32_t A, uint32_t B) {
  if (A == B)
    return A;
  if (!A || !B)
    return 0;
  Contents L = Table[A], R = Table[B]; // copies: the joins below may grow the table
  Contents J;
  switch (K) {
  case ValueKind::Tuple: {
    if (L.Elems.size() != R.Elems.size() || !L.Keys.empty() || !R.Keys.empty())
      return 0;
    bool Known = false;
    for (size_t I = 0; I < L.Elems.size(); ++I) {
      J.Elems.push_back(flow::join(L.Elems[I], R.Elems[I]));
      Known |= !unknown(J.Elems.back());
    }
    return Known ? intern(std::move(J)) : 0;
  }
  case ValueKind::List: {
    // An empty list on one path: the other path's elements are all it can hold.
    if (L.Elems.empty() || R.Elems.empty())
      return L.Elems.empty() ? B : A;
    Value E = flow::join(L.Elems[0], R.Elems[0]);
    if (unknown(E))
      return 0;
    J.Elems.push_back(E);
    return intern(std::move(J));
  }
  case ValueKind::Dict: {
    if (L.AnyKey || R.AnyKey) {
      // One value for every key: the join of all values either side holds.
      std::optional<Value> All;
      for (const Contents *C : {&L, &R})
        for (const Value &V : C->Elems)
          All = All ? flow::join(*All, V) : V;
      if (All && unknown(*All))
        return 0;
      J.AnyKey = true;
      if (All)
        J.Elems.push_back(*All);
      return intern(std::move(J));
    }
    // A key on one path only keeps that path's value (reading it on the other is a KeyError).
    J = L;
    for (size_t I = 0; I < R.Keys.size(); ++I) {
      auto It = std::find(J.Keys.begin(), J.Keys.end(), R.Keys[I]);
      if (It == J.Keys.end()) {
        J.Keys.push_back(R.Keys[I]);
        J.Elems.push_back(R.Elems[I]);
      } else {
        Value &Mine = J.Elems[static_cast<size_t>(It - J.Keys.begin())];
        Mine = flow::join(Mine, R.Elems[I]);
      }
    }
    return intern(std::move(J));
  }
  default:
    return 0;
  }
}

uint32_t ContainerTable::joinAsList(uint32_t A, uint32_t B) {
  std::optional<Value> All;
  for (uint32_t I : {A, B}) {
    std::vector<Value> Elems = Table[I].Elems; // a copy: the joins may grow the table
    for (const Value &V : Elems)
      All = All ? flow::join(*All, V) : V;
  }
  if (All && unknown(*All))
    return 0;
  Contents J;
  if (All)
    J.Elems.push_back(*All);
  return intern(std::move(J));
}

ActiveContainers::ActiveContainers(ContainerTable &T) : Saved(Active) { Active = &T; }
ActiveContainers::~ActiveContainers() { Active = Saved; }
ContainerTable *ActiveContainers::current() { return Active; }

} // namespace torchlint::flow
