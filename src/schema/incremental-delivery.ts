import { DirectiveLocation, GraphQLBoolean, GraphQLDirective, GraphQLInt, GraphQLNonNull, GraphQLString } from 'graphql';

// @defer and @stream, declared in the schema itself so that schema.graphql carries them and client tooling
// (codegen, editors) validates documents using them against the committed file. These are the definitions
// yoga's defer-stream plugin would otherwise add at run time (it adds none when the schema has them); that
// plugin (gateway-yoga.ts) brings their validation rules and incremental delivery.

const ifArgument = {
  type: new GraphQLNonNull(GraphQLBoolean),
  defaultValue: true,
  description: 'Deferred (streamed) when true.',
};
const labelArgument = { type: GraphQLString, description: 'Names this part in the incremental answers (unique in the document).' };

export const deferDirective = new GraphQLDirective({
  name: 'defer',
  description: 'Sends this fragment later, in an incremental part (multipart/mixed or SSE): e.g. a campaign header first, its rewards after.',
  locations: [DirectiveLocation.FRAGMENT_SPREAD, DirectiveLocation.INLINE_FRAGMENT],
  args: { if: ifArgument, label: labelArgument },
});

export const streamDirective = new GraphQLDirective({
  name: 'stream',
  description: 'Sends the first `initialCount` items of this list at once and each further item in an incremental part.',
  locations: [DirectiveLocation.FIELD],
  args: {
    if: ifArgument,
    label: labelArgument,
    initialCount: { type: GraphQLInt, defaultValue: 0, description: 'Items sent with the initial answer.' },
  },
});
