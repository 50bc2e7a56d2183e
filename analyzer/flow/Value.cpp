// Joins and comparisons of the device-flow lattice.
#include "flow/Value.h"

#include "flow/Containers.h"

namespace torchlint::flow {

bool certainlyDifferent(const Device &A, const Device &B) {
  if (!A.known() || !B.known() || A.Kind == DeviceKind::Meta || B.Kind == DeviceKind::Meta)
    return false;
  if (A.Kind == DeviceKind::Cpu || B.Kind == DeviceKind::Cpu)
    return A.Kind != B.Kind;
  if (A.Kind == DeviceKind::Configured || B.Kind == DeviceKind::Configured)
    return false; // a configured device may be any accelerator
  if (A.Kind != B.Kind)
    return true; // cuda and mps
  return A.Index >= 0 && B.Index >= 0 && A.Index != B.Index;
}

std::string deviceName(const Device &D) {
  switch (D.Kind) {
  case DeviceKind::Unknown:
    return "an unknown device";
  case DeviceKind::Cpu:
    return "cpu";
  case DeviceKind::Cuda:
    return D.Index >= 0 ? "cuda:" + std::to_string(D.Index) : "cuda";
  case DeviceKind::Mps:
    return "mps";
  case DeviceKind::Meta:
    return "meta";
  case DeviceKind::Configured:
    return D.Name == "self" ? "the module's device" : "`" + std::string(D.Name) + "`";
  }
  return "an unknown device";
}

std::string_view dtypeName(DType T) {
  switch (T) {
  case DType::Unknown:
    return "unknown";
  case DType::Float32:
    return "float32";
  case DType::Float64:
    return "float64";
  case DType::Half:
    return "float16";
  case DType::BFloat16:
    return "bfloat16";
  case DType::Integer:
    return "integer";
  case DType::Bool:
    return "bool";
  }
  return "unknown";
}

std::string_view originVerb(Origin O) {
  switch (O) {
  case Origin::None:
    return "";
  case Origin::Factory:
    return "created";
  case Origin::DataLoader:
    return "from the DataLoader";
  case Origin::Moved:
    return "moved";
  case Origin::Constructed:
    return "constructed";
  case Origin::ModuleOutput:
    return "output of a module placed";
  case Origin::Parameter:
    return "a parameter";
  case Origin::Attribute:
    return "set in `__init__`";
  case Origin::Numpy:
    return "from NumPy";
  case Origin::Cast:
    return "cast";
  case Origin::Derived:
    return "computed";
  case Origin::Config:
    return "chosen";
  case Origin::Imported:
    return "from another module";
  }
  return "";
}

bool Value::operator==(const Value &O) const {
  return Kind == O.Kind && Dev == O.Dev && Type == O.Type && R == O.R && Flags == O.Flags && DevHow == O.DevHow &&
         DevAt == O.DevAt && TypeHow == O.TypeHow && TypeAt == O.TypeAt && Loader == O.Loader && Factory == O.Factory && Parts == O.Parts &&
         Body == O.Body;
}

Value join(const Value &A, const Value &B) {
  if (A == B)
    return A;
  Value J;
  if (A.Kind != B.Kind) {
    // An input of `forward` of unknown kind on one path, a tensor computed from it on the other
    // (`x = x + noise` in a loop): still derived from the input.
    if (A.Kind == ValueKind::Unknown || B.Kind == ValueKind::Unknown)
      J.Flags = A.Flags & B.Flags & FlagInput;
    // A display on one path, a list built on the other: a list of every element either holds.
    bool Lists = (A.Kind == ValueKind::Tuple && B.Kind == ValueKind::List) ||
                 (A.Kind == ValueKind::List && B.Kind == ValueKind::Tuple);
    if (ContainerTable *T = ActiveContainers::current(); Lists && T && A.Parts && B.Parts) {
      J.Kind = ValueKind::List;
      J.Parts = T->joinAsList(A.Parts, B.Parts);
      if (!J.Parts)
        J.Kind = ValueKind::Unknown;
    }
    return J;
  }
  J.Kind = A.Kind;
  if (A.Dev == B.Dev) {
    J.Dev = A.Dev;
    // Keep the first provenance: any of them explains the fact.
    J.DevHow = A.DevHow;
    J.DevAt = A.DevAt;
  }
  if (A.Type == B.Type) {
    J.Type = A.Type;
    J.TypeHow = A.TypeHow;
    J.TypeAt = A.TypeAt;
  }
  J.R = A.R == B.R ? A.R : Rank::Unknown;
  J.Flags = A.Flags & B.Flags;
  if (A.Loader == B.Loader)
    J.Loader = A.Loader;
  if (J.has(FlagDefaultFactory))
    J.Factory = A.Factory;
  if (A.Parts == B.Parts) // the same contents (interned: equal contents, one index)
    J.Parts = A.Parts;
  else if (ContainerTable *T = ActiveContainers::current(); T && A.Parts && B.Parts && isContainer(A.Kind))
    J.Parts = T->join(A.Kind, A.Parts, B.Parts); // element by element; 0 where the shapes differ
  if (A.Body == B.Body)
    J.Body = A.Body;
  return J;
}

} // namespace torchlint::flow
