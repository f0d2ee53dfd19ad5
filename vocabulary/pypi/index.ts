/**
 * Python's packaging vocabulary beside the conda one: PEP 503 names, PEP 440 versions and
 * specifiers, PEP 508 requirements and environment markers, and the marker environment of a conda
 * target. Like vocabulary/, no Node API and no package: it runs in a browser too.
 */
export {
  PYPI_VOCABULARY_ERROR_CODES,
  InvalidPypiSyntaxError,
  PypiMarkerEvaluationError,
  PypiEnvironmentError,
  type PypiSyntaxCode,
} from './errors.js';
export { normalizePypiName, isValidPypiName, isNormalizedPypiName, parsePypiName, type NormalizedPypiName } from './name.js';
export {
  PypiVersion,
  InvalidPypiVersionError,
  parsePypiVersion,
  tryParsePypiVersion,
  isValidPypiVersion,
  comparePypiVersions,
  PYPI_VERSION_PATTERN,
  type PypiVersionParts,
  type PypiNumber,
  type PypiPreLetter,
  type PypiLocalSegment,
} from './version.js';
export {
  PypiSpecifier,
  PypiSpecifierSet,
  InvalidPypiSpecifierError,
  parsePypiSpecifier,
  parsePypiSpecifierSet,
  tryParsePypiSpecifierSet,
  type PypiOperator,
  type PrereleaseOptions,
  type PypiVersionLike,
} from './specifier.js';
export {
  PypiMarker,
  InvalidPypiMarkerError,
  parseMarker,
  tryParseMarker,
  evaluateMarker,
  MARKER_VARIABLES,
  type MarkerNode,
  type MarkerOperand,
  type MarkerOperator,
  type MarkerVariable,
  type MarkerEnvironment,
  type MarkerEvaluationOptions,
} from './markers.js';
export { PypiRequirement, InvalidPypiRequirementError, parseRequirement, tryParseRequirement } from './requirement.js';
