#!/bin/sh
# The official nginx image's entrypoint, as far as the compose file needs it: the name servers of
# /etc/resolv.conf as NGINX_LOCAL_RESOLVERS when NGINX_ENTRYPOINT_LOCAL_RESOLVERS is set, then every
# /etc/nginx/templates/NAME.template filled with the environment's variables into
# /etc/nginx/conf.d/NAME (nginx's own $variables, not in the environment, are left alone).
set -eu
if [ -n "${NGINX_ENTRYPOINT_LOCAL_RESOLVERS:-}" ]; then
    NGINX_LOCAL_RESOLVERS=$(awk '/^nameserver/ { if ($2 ~ ":") printf "[%s] ", $2; else printf "%s ", $2 }' /etc/resolv.conf)
    export NGINX_LOCAL_RESOLVERS
fi
if [ -d /etc/nginx/templates ]; then
    defined=$(env | cut -d= -f1 | sed 's/^/$/' | tr '\n' ' ')
    for template in /etc/nginx/templates/*.template; do
        [ -e "$template" ] || continue
        name=$(basename "$template" .template)
        envsubst "$defined" < "$template" > "/etc/nginx/conf.d/$name"
    done
fi
exec "$@"
