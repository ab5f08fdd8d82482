#include "apps/MeshFile.hpp"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <fstream>
#include <iomanip>
#include <stdexcept>
#include <vector>

namespace talus::app {

contact::TriangleMesh read_mesh(const std::filesystem::path& file, const MeshPlacement& placement,
                                bool require_closed) {
  const std::string name = file.string();
  if (!std::filesystem::is_regular_file(file)) throw std::runtime_error(name + ": no such file");
  Assimp::Importer importer;
  // No vertex joining here: Assimp joins only vertices with equal normals too, and an STL gives each triangle its
  // own normal; build_triangle_mesh welds by position.
  const aiScene* scene = importer.ReadFile(name, aiProcess_Triangulate | aiProcess_PreTransformVertices);
  if (!scene || (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) || scene->mNumMeshes == 0)
    throw std::runtime_error(name + ": " + (scene && scene->mNumMeshes == 0 ? std::string("no mesh in the file")
                                                                              : std::string(importer.GetErrorString())));
  std::vector<Eigen::Vector3d> vertices;
  std::vector<std::array<int, 3>> triangles;
  for (unsigned k = 0; k < scene->mNumMeshes; ++k) {
    const aiMesh* mesh = scene->mMeshes[k];
    const int base = static_cast<int>(vertices.size());
    for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
      const aiVector3D& p = mesh->mVertices[i];
      vertices.push_back(placement.rotation * (placement.scale * Eigen::Vector3d(p.x, p.y, p.z)) + placement.translation);
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3)
        throw std::runtime_error(name + ": mesh " + std::to_string(k) + " face " + std::to_string(f) + " has " +
                                 std::to_string(face.mNumIndices) + " vertices (expected triangles or polygons, not "
                                 "points or lines)");
      triangles.push_back({base + static_cast<int>(face.mIndices[0]), base + static_cast<int>(face.mIndices[1]),
                           base + static_cast<int>(face.mIndices[2])});
    }
  }
  try {
    return contact::build_triangle_mesh(name, std::move(vertices), triangles, require_closed);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

void write_stl(const std::filesystem::path& file, const contact::TriangleMesh& mesh, const std::string& solid_name) {
  std::ofstream out(file);
  if (!out) throw std::runtime_error(file.string() + ": cannot be written");
  out << std::setprecision(17) << "solid " << solid_name << '\n';
  for (int t = 0; t < mesh.faces(); ++t) {
    const Eigen::Vector3d& n = mesh.normals[t];
    out << "  facet normal " << n.x() << ' ' << n.y() << ' ' << n.z() << "\n    outer loop\n";
    for (int i : mesh.triangles[t]) {
      const Eigen::Vector3d& p = mesh.vertices[i];
      out << "      vertex " << p.x() << ' ' << p.y() << ' ' << p.z() << '\n';
    }
    out << "    endloop\n  endfacet\n";
  }
  out << "endsolid " << solid_name << '\n';
  if (!out) throw std::runtime_error(file.string() + ": writing failed");
}

}  // namespace talus::app
