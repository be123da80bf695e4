// Enum <-> text: one table per enum of the parameters. The parameter table (params.cpp) takes its
// choices and accepted-range text from here, ParamSet::typed() parses with it, and messages and
// kkm_get_param print with it, so a spelling lives in one place.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "core/params.h"

namespace kkm {

/// The spellings of enum E, in the order the parameter table lists them (the default first where
/// the table says so). Specialised below for every enum of Params.
template <class E>
struct EnumText;

#define KKM_ENUM_TEXT(E, ...)                                                                              \
    template <>                                                                                            \
    struct EnumText<E> {                                                                                   \
        static constexpr std::array values = std::to_array<std::pair<E, std::string_view>>({__VA_ARGS__}); \
    }

KKM_ENUM_TEXT(Method, {Method::exact, "exact"}, {Method::nystrom, "nystrom"}, {Method::sketch, "sketch"},
              {Method::rff, "rff"}, {Method::minibatch, "minibatch"});
KKM_ENUM_TEXT(KernelType, {KernelType::rbf, "rbf"}, {KernelType::laplacian, "laplacian"},
              {KernelType::polynomial, "polynomial"}, {KernelType::linear, "linear"}, {KernelType::cosine, "cosine"},
              {KernelType::precomputed, "precomputed"}, {KernelType::knn, "knn"}, {KernelType::heat, "heat"});
KKM_ENUM_TEXT(Init, {Init::kmeanspp, "kmeans++"}, {Init::random, "random"});
KKM_ENUM_TEXT(Sampling, {Sampling::uniform, "uniform"}, {Sampling::rls, "rls"}, {Sampling::kmeanspp, "kmeanspp"});
KKM_ENUM_TEXT(SketchKind, {SketchKind::subgaussian, "subgaussian"}, {SketchKind::ros, "ros"},
              {SketchKind::gaussian, "gaussian"}, {SketchKind::identity, "identity"});
KKM_ENUM_TEXT(LearningRate, {LearningRate::beta, "beta"}, {LearningRate::sklearn, "sklearn"});
KKM_ENUM_TEXT(Solver, {Solver::lloyd, "lloyd"}, {Solver::minibatch, "minibatch"});
KKM_ENUM_TEXT(Refine, {Refine::none, "none"}, {Refine::hartigan, "hartigan"});
KKM_ENUM_TEXT(SearchCriterion, {SearchCriterion::matr, "matr"}, {SearchCriterion::stability, "stability"});
KKM_ENUM_TEXT(IsaChoice, {IsaChoice::automatic, "auto"}, {IsaChoice::avx512, "avx512"}, {IsaChoice::avx2, "avx2"},
              {IsaChoice::portable, "portable"});
KKM_ENUM_TEXT(RowsChoice, {RowsChoice::automatic, "auto"}, {RowsChoice::f32, "f32"}, {RowsChoice::f16, "f16"});
KKM_ENUM_TEXT(GraphChoice, {GraphChoice::automatic, "auto"}, {GraphChoice::exact, "exact"},
              {GraphChoice::nndescent, "nndescent"}, {GraphChoice::anchor, "anchor"});
KKM_ENUM_TEXT(Switch, {Switch::on, "true"}, {Switch::off, "false"});

#undef KKM_ENUM_TEXT

/// The spelling of `value` ("unknown" for a value outside the enum, which a cast could make).
template <class E>
constexpr const char* to_text(E value) {
    for (const auto& [v, text] : EnumText<E>::values) {
        if (v == value) return text.data();
    }
    return "unknown";
}

/// The value spelled `text`; false when no value has that spelling.
template <class E>
constexpr bool from_text(std::string_view text, E& out) {
    for (const auto& [v, spelling] : EnumText<E>::values) {
        if (spelling == text) {
            out = v;
            return true;
        }
    }
    return false;
}

/// Every spelling joined by '|' ("exact|nystrom|..."), as the parameter table shows choices.
template <class E>
const std::string& choices_text() {
    static const std::string joined = [] {
        std::string s;
        for (const auto& [v, text] : EnumText<E>::values) s.append(s.empty() ? "" : "|").append(text);
        return s;
    }();
    return joined;
}

}  // namespace kkm
