# PostgreSQL for deploy/docker-compose.postgres.yml: Debian's `postgresql` package on the same base
# image as the Sous image (debian:bookworm-slim, or the debootstrap import of that name made by
# deploy/build-base-image.sh when no registry is reachable), started by deploy/postgres-entrypoint.sh
# as the `postgres` user. The build context is the deploy/ folder:
#
#   docker build --network host -f deploy/postgres.Dockerfile -t sous-postgres:latest deploy
#
# apt-get fetches the packages from the base image's Debian mirror during the build (`--network
# host` is only needed when the engine has no bridge network, like deploy/compose-test.sh's).
#
# The cluster lives in the volume mounted on /var/lib/postgresql/data (PGDATA is its `pgdata`
# subfolder) and is created on first start; see deploy/postgres-entrypoint.sh for the settings.

ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}

# postgresql-common first, to turn off the `main` cluster the server package would otherwise
# create in the image; /usr/lib/postgresql/current points at the installed major version.
RUN set -eu; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-common; \
    sed -ri 's/^#?[[:space:]]*create_main_cluster[[:space:]]*=.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf; \
    grep -qx 'create_main_cluster = false' /etc/postgresql-common/createcluster.conf; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql; \
    rm -rf /var/lib/apt/lists/*; \
    ln -s "$(ls -d /usr/lib/postgresql/[0-9]* | sort -V | tail -n 1)" /usr/lib/postgresql/current; \
    /usr/lib/postgresql/current/bin/postgres --version; \
    mkdir -p /var/lib/postgresql/data /run/postgresql; \
    chown postgres:postgres /var/lib/postgresql/data /run/postgresql; \
    chmod 0700 /var/lib/postgresql/data

COPY postgres-entrypoint.sh /usr/local/bin/sous-postgres-entrypoint

ENV PATH=/usr/lib/postgresql/current/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data/pgdata \
    TZ=UTC
USER postgres
WORKDIR /var/lib/postgresql
VOLUME /var/lib/postgresql/data
EXPOSE 5432
# SIGINT is PostgreSQL's fast shutdown (SIGTERM would wait for every client to disconnect).
STOPSIGNAL SIGINT
ENTRYPOINT ["sous-postgres-entrypoint"]
CMD []
