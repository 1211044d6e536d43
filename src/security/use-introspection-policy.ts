import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

// What a caller may learn of the schema. Outside production (INTROSPECTION, default: on unless NODE_ENV is
// production) introspection and "did you mean …" suggestions are served; in production neither is, so the schema
// is not handed to whoever holds a key.
//
// The rule is added in envelop's validate, which every transport runs: yoga's own useDisableIntrospection
// decides per fetch Request, which an operation over WebSocket does not have, so graphql-ws refused
// introspection by a second, hand-written check whose errors lacked the code yoga gives validation errors.

export interface IntrospectionPolicy {
  /** Default: `introspectionEnabled(config)`. */
  introspection: boolean;
}

export function useIntrospectionPolicy({ introspection }: IntrospectionPolicy): Plugin[] {
  if (introspection) return [];
  return [
    {
      onValidate({ addValidationRule }) {
        addValidationRule(NoSchemaIntrospectionCustomRule);
      },
    },
    // graphql-armor types its plugins as plain envelop plugins; yoga runs them as they are.
    blockFieldSuggestionsPlugin() as Plugin,
  ];
}
