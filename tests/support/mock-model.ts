// The one mock model server of the test suite, now shipped as lib/wire/mock/ (`proctor mock-model`
// serves it): this file keeps the import path and API every test already uses.
export { type MockModel, type MockOptions, startMockModel } from "../../lib/wire/mock/server.ts";
export {
  type AuthKind,
  hang,
  httpError,
  type MockProtocol,
  type MockRequest,
  runCommand,
  type Script,
  type Step,
  type StepContext,
  shellCall,
  stall,
  text,
  toolCalls,
  toolLoop,
} from "../../lib/wire/mock/steps.ts";
