export {
  ONBOARDING_STEPS,
  canDismissOnboarding,
  dismissOnboarding,
  onboardingProgress,
  onboardingStepsFor,
  showOnboarding,
  stepsShown,
} from './onboarding.js';
export type { OnboardingProgress, OnboardingStep, OnboardingSteps } from './onboarding.js';
